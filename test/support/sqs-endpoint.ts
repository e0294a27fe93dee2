import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An SQS-compatible endpoint on 127.0.0.1 for the SQS adapters' tests: the
 * AWS JSON 1.0 protocol the SDK speaks (`X-Amz-Target: AmazonSQS.<Action>`,
 * `application/x-amz-json-1.0`), with the four actions the service uses and
 * the limits the Amazon SQS API Reference documents for them:
 *
 * - SendMessage: `MessageBody` 1 byte to 256 KiB of the allowed Unicode
 *   characters (#x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD, #x10000–#x10FFFF);
 *   `DelaySeconds` 0–900; answers `MessageId` and `MD5OfMessageBody`.
 * - ReceiveMessage: `MaxNumberOfMessages` 1–10, `VisibilityTimeout`; a
 *   received message stays invisible for the queue's visibility timeout
 *   (30 s by default) unless the request names another.
 * - ChangeMessageVisibility: `VisibilityTimeout` 0–43200 (12 hours), on a
 *   message in flight, by its receipt handle.
 * - DeleteMessage, by receipt handle.
 *
 * Time is the test's (`advance`), so delays and visibility are checked
 * without waiting. Not a full SQS: no FIFO, batches, attributes or auth check
 * beyond recording the `Authorization` header each request carried.
 */
export interface SqsEndpoint {
  readonly url: string;
  readonly queueUrl: string;
  /** Every request: action, JSON body and headers, as received. */
  readonly requests: Array<{ action: string; body: any; headers: IncomingHttpHeaders }>;
  advance(seconds: number): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 256 * 1024;
const DEFAULT_VISIBILITY_SECONDS = 30;
const ALLOWED_CHARACTERS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

interface StoredMessage {
  readonly id: string;
  readonly body: string;
  visibleAt: number;
  receiptHandle: string | null;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function wholeNumberIn(value: unknown, name: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new SqsError(
      'InvalidParameterValue',
      `Value ${String(value)} for parameter ${name} is invalid. Reason: must be between ${min} and ${max}.`,
    );
  }
  return value as number;
}

export async function startSqsEndpoint(): Promise<SqsEndpoint> {
  let nowSeconds = 1_800_000_000;
  const messages: StoredMessage[] = [];
  const requests: SqsEndpoint['requests'] = [];
  let queueUrl = '';

  const actions: Record<string, (body: any) => unknown> = {
    SendMessage(body) {
      const text = body.MessageBody;
      if (typeof text !== 'string' || text.length === 0) {
        throw new SqsError(
          'MissingParameter',
          'The request must contain the parameter MessageBody.',
        );
      }
      if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES || !ALLOWED_CHARACTERS.test(text)) {
        throw new SqsError('InvalidMessageContents', 'Invalid characters or size in MessageBody.');
      }
      const delay =
        body.DelaySeconds === undefined
          ? 0
          : wholeNumberIn(body.DelaySeconds, 'DelaySeconds', 0, 900);
      const message: StoredMessage = {
        id: randomUUID(),
        body: text,
        visibleAt: nowSeconds + delay,
        receiptHandle: null,
      };
      messages.push(message);
      return { MessageId: message.id, MD5OfMessageBody: md5(text) };
    },
    ReceiveMessage(body) {
      const max =
        body.MaxNumberOfMessages === undefined
          ? 1
          : wholeNumberIn(body.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, 10);
      const visibility =
        body.VisibilityTimeout === undefined
          ? DEFAULT_VISIBILITY_SECONDS
          : wholeNumberIn(body.VisibilityTimeout, 'VisibilityTimeout', 0, 43_200);
      const received = messages.filter((message) => message.visibleAt <= nowSeconds).slice(0, max);
      for (const message of received) {
        message.visibleAt = nowSeconds + visibility;
        message.receiptHandle = randomUUID();
      }
      return {
        Messages: received.map((message) => ({
          MessageId: message.id,
          ReceiptHandle: message.receiptHandle,
          MD5OfBody: md5(message.body),
          Body: message.body,
        })),
      };
    },
    ChangeMessageVisibility(body) {
      const seconds = wholeNumberIn(body.VisibilityTimeout, 'VisibilityTimeout', 0, 43_200);
      const message = messages.find((candidate) => candidate.receiptHandle === body.ReceiptHandle);
      if (!message)
        throw new SqsError('ReceiptHandleIsInvalid', 'The receipt handle is not valid.');
      if (message.visibleAt <= nowSeconds) {
        throw new SqsError('MessageNotInflight', 'The message is not in flight.');
      }
      message.visibleAt = nowSeconds + seconds;
      return {};
    },
    DeleteMessage(body) {
      const index = messages.findIndex(
        (candidate) => candidate.receiptHandle === body.ReceiptHandle,
      );
      if (index === -1)
        throw new SqsError('ReceiptHandleIsInvalid', 'The receipt handle is not valid.');
      messages.splice(index, 1);
      return {};
    },
  };

  const answer = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      requests.push({ action, body, headers: req.headers });
      const handle = actions[action];
      try {
        if (!handle) throw new SqsError('InvalidAction', `Unknown action ${target}`);
        if (body.QueueUrl !== queueUrl) {
          throw new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
        }
        answer(res, 200, handle(body));
      } catch (error) {
        if (!(error instanceof SqsError)) throw error;
        // The JSON protocol's error shape, and the query-compatible code header SQS adds.
        answer(
          res,
          400,
          { __type: `com.amazonaws.sqs#${error.code}`, message: error.message },
          { 'x-amzn-query-error': `${error.code};Sender` },
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  queueUrl = `${url}/123456789012/svc-deliveries`;
  return {
    url,
    queueUrl,
    requests,
    advance: (seconds) => {
      nowSeconds += seconds;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
