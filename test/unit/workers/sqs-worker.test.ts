import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { RetryLaterError } from '../../../layers/core/workers/retry-later-error';
import {
  receiveCountOf,
  sqsWorker,
  workingAttemptsOf,
} from '../../../layers/core/workers/sqs-worker';

function record(messageId: string, body: string, receiveCount = '1'): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: receiveCount,
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:test',
    awsRegion: 'eu-west-1',
  };
}

const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

describe('Function: sqsWorker', () => {
  it('hands each parsed message to the handler and reports no failure when all succeed', async () => {
    // Prepare
    const seen: number[] = [];
    const handler = sqsWorker({
      logger: { error: jest.fn() },
      messageKind: 'test',
      parse: (body) => (body as { n: number }).n,
      handle: async (n) => {
        seen.push(n);
      },
    });

    // Act
    const response = await handler(eventOf(record('a', '{"n":1}'), record('b', '{"n":2}')));

    // Assess
    expect(seen).toEqual([1, 2]);
    expect(response.batchItemFailures).toEqual([]);
  });

  it('reports a record whose handler throws as a batch item failure, for SQS to deliver again', async () => {
    const handler = sqsWorker({
      logger: { error: jest.fn() },
      messageKind: 'test',
      parse: (body) => body as { fail: boolean },
      handle: async (message) => {
        if (message.fail) throw new RetryLaterError('later');
      },
    });

    const response = await handler(
      eventOf(record('ok', '{"fail":false}'), record('again', '{"fail":true}')),
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'again' }]);
  });

  it('drops a malformed message with one log line: no delivery could mend it', async () => {
    const error = jest.fn();
    const handle = jest.fn(async () => undefined);
    const handler = sqsWorker({
      logger: { error },
      messageKind: 'test',
      parse: (body) => {
        if (typeof body !== 'string') throw new Error('not a string');
        return body;
      },
      handle,
    });

    const response = await handler(eventOf(record('bad-json', '{'), record('bad-shape', '{}')));

    expect(response.batchItemFailures).toEqual([]);
    expect(handle).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(2);
    expect(error).toHaveBeenCalledWith('Dropped a malformed test message', {
      message_id: 'bad-json',
    });
  });
});

describe('Function: receiveCountOf and workingAttemptsOf (issue 14)', () => {
  it('reads the attempt number from ApproximateReceiveCount, 1 when absent', () => {
    expect(receiveCountOf(record('a', '{}', '3'))).toBe(3);
    expect(receiveCountOf(record('a', '{}', ''))).toBe(1);
  });

  it('keeps the last delivery before the redrive for ending the work', () => {
    expect(workingAttemptsOf(5)).toBe(4);
  });
});
