import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CHANGE_TIME_RESOURCE_TYPE, ChangeTime } from '../../../lib/constructs/change-time';

type ChangeTimeEvent = {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  ResourceProperties: { Value: string };
  OldResourceProperties?: { Value: string };
};
type ChangeTimeAnswer = { PhysicalResourceId?: string; Data?: { ChangedAt: string } };

// The provider's plain JavaScript handler, run as CloudFormation would call it.
const { handler } = require('../../../lib/constructs/change-time-handler/index.js') as {
  handler: (event: ChangeTimeEvent) => Promise<ChangeTimeAnswer>;
};

describe('Construct: ChangeTime (P241)', () => {
  it('is a custom resource told only the value, whose ChangedAt attribute is the time', () => {
    // Prepare
    const stack = new Stack(new App(), 'Probe');

    // Act
    const changed = new ChangeTime(stack, 'Changed', { value: 'a,b' });

    // Assess
    const template = Template.fromStack(stack);
    template.hasResourceProperties(CHANGE_TIME_RESOURCE_TYPE, { Value: 'a,b' });
    expect(stack.resolve(changed.time)).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(changed.resource.node.defaultChild as never), 'ChangedAt'],
    });
  });

  describe('handler', () => {
    it('answers now on Create, and keeps the time in the physical id', async () => {
      const before = Date.now();
      const created = await handler({ RequestType: 'Create', ResourceProperties: { Value: 'a' } });
      const changedAt = created.Data?.ChangedAt ?? '';

      expect(Date.parse(changedAt)).toBeGreaterThanOrEqual(before);
      expect(created.PhysicalResourceId).toBe(`changed-at:${changedAt}`);
    });

    it('keeps the time on an Update that leaves the value alone', async () => {
      const updated = await handler({
        RequestType: 'Update',
        PhysicalResourceId: 'changed-at:2026-01-02T03:04:05.000Z',
        ResourceProperties: { Value: 'a' },
        OldResourceProperties: { Value: 'a' },
      });

      expect(updated).toEqual({
        PhysicalResourceId: 'changed-at:2026-01-02T03:04:05.000Z',
        Data: { ChangedAt: '2026-01-02T03:04:05.000Z' },
      });
    });

    it('answers a new time, under a new physical id, when the value changed', async () => {
      const updated = await handler({
        RequestType: 'Update',
        PhysicalResourceId: 'changed-at:2026-01-02T03:04:05.000Z',
        ResourceProperties: { Value: 'a,b' },
        OldResourceProperties: { Value: 'a' },
      });

      expect(updated.Data?.ChangedAt).not.toBe('2026-01-02T03:04:05.000Z');
      expect(updated.PhysicalResourceId).toBe(`changed-at:${updated.Data?.ChangedAt}`);
    });

    it('does nothing on Delete', async () => {
      expect(
        await handler({
          RequestType: 'Delete',
          PhysicalResourceId: 'changed-at:2026-01-02T03:04:05.000Z',
          ResourceProperties: { Value: 'a' },
        }),
      ).toEqual({});
    });
  });
});
