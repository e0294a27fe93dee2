/**
 * The handler of the ChangeTime custom resource (lib/constructs/change-time.ts),
 * plain JavaScript for CDK's CustomResourceProvider (no bundling). It answers when
 * `Value` last changed. The time lives in the physical id, so an Update whose
 * `Value` is unchanged (a new property, a provider upgrade) keeps it; an Update
 * with a new `Value` gets a new id, and CloudFormation's Delete of the old id is
 * a no-op.
 */
const PREFIX = 'changed-at:';

exports.handler = async (event) => {
  if (event.RequestType === 'Delete') return {};
  const previous = event.PhysicalResourceId;
  const unchanged =
    event.RequestType === 'Update' &&
    typeof previous === 'string' &&
    previous.startsWith(PREFIX) &&
    event.OldResourceProperties?.Value === event.ResourceProperties.Value;
  const changedAt = unchanged ? previous.slice(PREFIX.length) : new Date().toISOString();
  return { PhysicalResourceId: `${PREFIX}${changedAt}`, Data: { ChangedAt: changedAt } };
};
