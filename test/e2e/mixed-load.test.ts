import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { startTestService, type TestService } from '../support/local-service';
import {
  expectedRefusals,
  type LoadOrganization,
  prepareOrganizations,
  runMixedLoad,
  tally,
} from '../support/mixed-load';
import { createKey } from '../support/tenants';
import { TestClock } from '../support/test-clock';

jest.setTimeout(120_000);

/**
 * Issue 13 item 5, small: 250 mixed requests (reads, writes,
 * queries, semantic searches, uploads) from organizations on each plan, 50 at
 * a time, against the real local runtime. No 5xx and no 4xx but 429; and, the
 * clock frozen so nothing refills, each organization gets exactly the 429s
 * its limits allow for what it was sent (D16, D31, P59, P106). The full run
 * is the `mixed-load` section of `npm run bench`.
 */
describe('Mixed load (issue 13)', () => {
  const clock = new TestClock();
  let service: TestService;
  beforeAll(async () => {
    clock.freeze();
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());

  it('answers every request with a 2xx or the 429s the limits allow, never a 5xx', async () => {
    // Prepare: enterprise (room for everything, one key overdrawing its Write bucket), pro (over its 100 a minute), free (over 20)
    const organization = async (
      name: string,
      plan: LoadOrganization['plan'],
      keys: number,
      requests: number,
      overdrawWrites = 0,
    ): Promise<LoadOrganization> => {
      const org = await createOrganization(service.runtime.dependencies, { name, plan });
      const created = await Promise.all(
        Array.from({ length: keys }, () => createKey(service, org.id)),
      );
      return {
        name,
        plan,
        orgId: org.id,
        keys: created.map((key) => key.key),
        requests,
        overdrawWrites,
      };
    };
    const organizations = await prepareOrganizations(service.url, [
      await organization('enterprise', 'enterprise', 3, 100, 10),
      await organization('pro', 'pro', 2, 110),
      await organization('free', 'free', 1, 30),
    ]);

    // Act
    const result = await runMixedLoad({ url: service.url, organizations, concurrency: 50 });

    // Assess
    const rows = tally(result.outcomes);
    expect(result.outcomes.filter((outcome) => outcome.kind !== 'upload-body')).toHaveLength(250);
    expect(
      rows.map(({ kind, serverErrors, otherClientErrors }) => ({
        kind,
        serverErrors,
        otherClientErrors,
      })),
    ).toEqual(rows.map(({ kind }) => ({ kind, serverErrors: 0, otherClientErrors: 0 })));
    for (const row of expectedRefusals(result, 'frozen')) {
      expect(row).toMatchObject({ refused: row.expectedMin });
      expect(row.expectedMin).toBe(row.expectedMax);
    }
    const [enterprise, pro, free] = expectedRefusals(result, 'frozen');
    // Only the overdrawn key's Write bucket refuses the enterprise organization; the plans' minutes refuse the others.
    expect(enterprise?.refused).toBeGreaterThan(0);
    expect(pro?.refused).toBe(110 + 2 - 100); // the setup's 2 requests count too
    expect(free?.refused).toBe(30 + 2 - 20);
    const reasons = new Set(result.outcomes.map((outcome) => `${outcome.org}:${outcome.reason}`));
    expect(reasons).toContain('enterprise:scope_rate');
    expect(reasons).not.toContain('enterprise:plan_rate');
    expect(reasons).toContain('pro:plan_rate');
    expect(reasons).toContain('free:plan_rate');
    expect(
      result.outcomes.some((outcome) => outcome.kind === 'upload-body' && outcome.status === 204),
    ).toBe(true);
  });
});
