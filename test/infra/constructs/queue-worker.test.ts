import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { QueueWorker } from '../../../lib/constructs/queue-worker';
import { WorkQueue } from '../../../lib/constructs/work-queue';

function workerIn(visibilityTimeout: Duration, timeout: Duration) {
  // No bundling: these tests look at the construct tree, not the code.
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Workers');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const queue = new WorkQueue(stack, 'Work', { encryptionKey, visibilityTimeout });
  const worker = new QueueWorker(stack, 'Worker', {
    folder: 'webhook-dispatcher',
    description: 'test worker',
    queue,
    environment: {},
    timeout,
    concurrency: 4,
  });
  return { stack, worker };
}

describe('Class: QueueWorker', () => {
  it('consumes its queue with batch item failures, capped at its reserved concurrency', () => {
    const { stack, worker } = workerIn(Duration.minutes(3), Duration.seconds(30));

    expect(worker.node.validate()).toEqual([]);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 30,
      ReservedConcurrentExecutions: 4,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 4 },
    });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(
      template.findResources('AWS::Lambda::EventSourceMapping')[
        stack.getLogicalId(worker.eventSourceMapping.node.defaultChild as never)
      ],
    ).toBeDefined();
  });

  it('refuses a queue whose visibility timeout is under six function timeouts', () => {
    const { worker } = workerIn(Duration.minutes(2), Duration.seconds(30));

    expect(worker.node.validate()).toEqual([
      expect.stringMatching(
        /must be at least 6 × the function timeout \(30 seconds\), 180 seconds/,
      ),
    ]);
  });
});
