import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../../layers/core/adapters/aws/sqs-queue';
import { SqsMessageVisibility } from '../../../layers/core/adapters/aws/sqs-visibility';
import { type SqsEndpoint, startSqsEndpoint } from '../../support/sqs-endpoint';

/**
 * The SQS adapters through the real AWS SDK client against an SQS-compatible
 * endpoint served here (test/support/sqs-endpoint.ts, written from the Amazon
 * SQS API Reference): the requests they send, and what a queue holding
 * AWS's documented limits does with them.
 */
describe('SQS adapters against an SQS-compatible endpoint', () => {
  let endpoint: SqsEndpoint;
  let client: SQSClient;

  beforeAll(async () => {
    endpoint = await startSqsEndpoint();
    client = new SQSClient({
      region: 'eu-west-1',
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-for-tests' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await endpoint.close();
  });

  const receive = async (visibilityTimeout?: number) =>
    (
      await client.send(
        new ReceiveMessageCommand({
          QueueUrl: endpoint.queueUrl,
          MaxNumberOfMessages: 10,
          ...(visibilityTimeout !== undefined ? { VisibilityTimeout: visibilityTimeout } : {}),
        }),
      )
    ).Messages ?? [];
  const drain = async () => {
    endpoint.advance(43_200);
    for (const message of await receive()) {
      await client.send(
        new DeleteMessageCommand({
          QueueUrl: endpoint.queueUrl,
          ReceiptHandle: message.ReceiptHandle,
        }),
      );
    }
  };
  afterEach(drain);

  describe('Class: SqsQueue', () => {
    it('sends one SendMessage, signed for sqs, whose body is the message as JSON', async () => {
      const queue = new SqsQueue<{ job: string; attempt: number }>(client, endpoint.queueUrl);
      const before = endpoint.requests.length;

      await queue.send({ job: 'job_1', attempt: 2 });

      const [request] = endpoint.requests.slice(before);
      expect(request?.action).toBe('SendMessage');
      expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
      expect(request?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/sqs\/aws4_request/,
      );
      expect(request?.body).toEqual({
        QueueUrl: endpoint.queueUrl,
        MessageBody: '{"job":"job_1","attempt":2}',
      });
      const [message] = await receive();
      expect(JSON.parse(message?.Body ?? '')).toEqual({ job: 'job_1', attempt: 2 });
    });

    it('keeps a delayed message invisible for its DelaySeconds', async () => {
      const queue = new SqsQueue<{ n: number }>(client, endpoint.queueUrl);

      await queue.send({ n: 1 }, { delaySeconds: 900 });

      expect(endpoint.requests.at(-1)?.body.DelaySeconds).toBe(900);
      endpoint.advance(899);
      expect(await receive()).toEqual([]);
      endpoint.advance(1);
      expect((await receive()).map((message) => message.Body)).toEqual(['{"n":1}']);
    });

    it('omits DelaySeconds for no delay, and fails as SQS does past its 900 s', async () => {
      const queue = new SqsQueue<{ n: number }>(client, endpoint.queueUrl);

      await queue.send({ n: 2 }, { delaySeconds: 0 });
      const sent = endpoint.requests.at(-1)?.body;

      expect(sent).not.toHaveProperty('DelaySeconds');
      await expect(queue.send({ n: 3 }, { delaySeconds: 901 })).rejects.toThrow(/DelaySeconds/);
    });
  });

  describe('Class: SqsMessageVisibility', () => {
    it('hides a received message for exactly the seconds asked, by its receipt handle', async () => {
      await new SqsQueue<{ n: number }>(client, endpoint.queueUrl).send({ n: 4 });
      const [message] = await receive();
      const visibility = new SqsMessageVisibility(client, endpoint.queueUrl);

      await visibility.change(message?.ReceiptHandle ?? '', 600);

      expect(endpoint.requests.at(-1)).toMatchObject({
        action: 'ChangeMessageVisibility',
        body: {
          QueueUrl: endpoint.queueUrl,
          ReceiptHandle: message?.ReceiptHandle,
          VisibilityTimeout: 600,
        },
      });
      endpoint.advance(599);
      expect(await receive()).toEqual([]);
      endpoint.advance(1);
      expect((await receive()).map((again) => again.MessageId)).toEqual([message?.MessageId]);
    });

    it('takes the documented range, 0 to 43200 s, and fails as SQS does outside it', async () => {
      await new SqsQueue<{ n: number }>(client, endpoint.queueUrl).send({ n: 5 });
      const [message] = await receive();
      const visibility = new SqsMessageVisibility(client, endpoint.queueUrl);
      const handle = message?.ReceiptHandle ?? '';

      await visibility.change(handle, 43_200);
      await expect(visibility.change(handle, 43_201)).rejects.toThrow(/VisibilityTimeout/);
      await visibility.change(handle, 0);
      // At 0 the message is visible again, no longer in flight.
      await expect(visibility.change(handle, 10)).rejects.toThrow(/not in flight/);
    });

    it('fails for a receipt handle SQS does not know', async () => {
      const visibility = new SqsMessageVisibility(client, endpoint.queueUrl);

      await expect(visibility.change('not-a-receipt-handle', 30)).rejects.toThrow(
        /receipt handle is not valid/,
      );
    });
  });
});
