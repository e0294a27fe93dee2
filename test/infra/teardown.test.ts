import type { Template } from 'aws-cdk-lib/assertions';
import { buildServiceStack, templateOf } from './service-stack-fixture';

type Resource = { Type: string; DeletionPolicy?: string; Properties?: unknown };

/** Logical ids a value refers to with `Ref` or `Fn::GetAtt`, however deep. */
function referencedIds(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencedIds(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt' && Array.isArray(inner) && typeof inner[0] === 'string') {
        found.add(inner[0]);
      } else referencedIds(inner, found);
    }
  }
  return found;
}

function resourcesOf(template: Template): Record<string, Resource> {
  return template.toJSON().Resources as Record<string, Resource>;
}

/** What `cdk destroy` leaves behind: resources with DeletionPolicy Retain (or RetainExceptOnCreate). */
function retained(resources: Record<string, Resource>): Array<[string, Resource]> {
  return Object.entries(resources).filter(([, resource]) =>
    resource.DeletionPolicy?.startsWith('Retain'),
  );
}

describe('Teardown: what cdk destroy leaves behind, per environment', () => {
  describe.each([
    ['test defaults', { environment: 'test' }],
    ['test with the live network', { environment: 'test', searchNetwork: 'vpc' }],
  ])('environment "test" (%s)', (_name, context) => {
    let resources: Record<string, Resource>;

    beforeAll(() => {
      resources = resourcesOf(templateOf(buildServiceStack(context)));
    });

    it('retains nothing that refers to a KMS key it deletes', () => {
      const deletedKeys = new Set(
        Object.entries(resources)
          .filter(([, r]) => r.Type === 'AWS::KMS::Key' && !r.DeletionPolicy?.startsWith('Retain'))
          .map(([id]) => id),
      );
      expect(deletedKeys.size).toBe(3);
      const orphans = retained(resources)
        .filter(([, r]) => [...referencedIds(r.Properties)].some((id) => deletedKeys.has(id)))
        .map(([id, r]) => `${id} (${r.Type})`);
      expect(orphans).toEqual([]);
    });

    it('leaves only the account-wide API Gateway logging role behind', () => {
      expect(
        retained(resources)
          .map(([, r]) => r.Type)
          .sort(),
      ).toEqual(['AWS::ApiGateway::Account', 'AWS::IAM::Role']);
    });

    it('empties every bucket before deleting it', () => {
      // The file bucket, its access logs, the console's bucket and its distribution's logs.
      const buckets = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::S3::Bucket');
      expect(buckets).toHaveLength(4);
      for (const [id, bucket] of buckets) {
        expect({ id, policy: bucket.DeletionPolicy }).toEqual({ id, policy: 'Delete' });
      }
      const emptied = Object.values(resources)
        .filter((r) => r.Type === 'Custom::S3AutoDeleteObjects')
        .flatMap((r) => [...referencedIds(r.Properties)]);
      expect(emptied).toEqual(expect.arrayContaining(buckets.map(([id]) => id)));
    });
  });

  describe('environment "live"', () => {
    let resources: Record<string, Resource>;

    beforeAll(() => {
      resources = resourcesOf(templateOf(buildServiceStack({ environment: 'live' })));
    });

    it('retains every KMS key', () => {
      const keys = Object.values(resources).filter((r) => r.Type === 'AWS::KMS::Key');
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(key.DeletionPolicy).toBe('Retain');
    });

    it('retains every store and log group, and never empties a bucket', () => {
      const stateful = [
        'AWS::DynamoDB::Table',
        'AWS::S3::Bucket',
        'AWS::OpenSearchService::Domain',
        'AWS::SecretsManager::Secret',
        'AWS::Logs::LogGroup',
      ];
      // P242: the console's origin secret only proves a request came through the stack's own
      // distribution, which goes with the stack; a rotation makes a new one (P243). Nothing to keep.
      const disposable = (id: string) => id.startsWith('OriginVerifySecret');
      const deleted = Object.entries(resources)
        .filter(
          ([id, r]) =>
            stateful.includes(r.Type) && r.DeletionPolicy !== 'Retain' && !disposable(id),
        )
        .map(([id, r]) => `${id} (${r.Type})`);
      expect(deleted).toEqual([]);
      expect(Object.values(resources).some((r) => r.Type === 'Custom::S3AutoDeleteObjects')).toBe(
        false,
      );
    });
  });
});
