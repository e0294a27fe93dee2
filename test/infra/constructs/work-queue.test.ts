import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { WorkQueue, type WorkQueueProps } from '../../../lib/constructs/work-queue';

function queueIn(props: Partial<WorkQueueProps> = {}) {
  const stack = new Stack(new App(), 'Queues');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const queue = new WorkQueue(stack, 'Work', { encryptionKey, ...props });
  return { stack, queue };
}

describe('Class: WorkQueue', () => {
  it('creates a queue redriven to its own KMS-encrypted dead-letter queue with defaults', () => {
    const { stack, queue } = queueIn();

    expect(queue.node.validate()).toEqual([]);
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 300,
      MessageRetentionPeriod: 345_600,
      RedrivePolicy: {
        deadLetterTargetArn: {
          'Fn::GetAtt': [
            stack.getLogicalId(queue.deadLetterQueue.node.defaultChild as never),
            'Arn',
          ],
        },
        maxReceiveCount: 5,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 1_209_600 });
  });

  it('refuses a dead-letter retention shorter than the queue retention at synth time', () => {
    const { queue } = queueIn({
      retentionPeriod: Duration.days(10),
      deadLetterRetentionPeriod: Duration.days(7),
    });

    expect(queue.node.validate()).toEqual([
      expect.stringMatching(
        /deadLetterRetentionPeriod \(7 days\) must not be shorter than retentionPeriod \(10 days\)/,
      ),
    ]);
  });
});
