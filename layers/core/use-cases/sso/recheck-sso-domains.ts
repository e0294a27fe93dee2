import { DOMAIN_RECHECK } from '../../domain/sso';
import type { Clock } from '../../ports/clock.port';
import type { DueDomainCheck, SsoRepository, TxtResolver } from '../../ports/sso.port';

export interface DomainRecheckDependencies {
  readonly ssoRepository: Pick<
    SsoRepository,
    | 'listDueForCheck'
    | 'moveNextCheck'
    | 'getDomain'
    | 'recordConfirmedCheck'
    | 'recordFailedCheck'
    | 'markUnverified'
  >;
  readonly txtResolver: TxtResolver;
  readonly clock: Clock;
}

export interface DomainRecheckOptions {
  /** When aborted, no further domain is looked up; the ones left stay due for the next run. */
  readonly signal?: AbortSignal;
}

/** What one run did, for the scheduler's log line. */
export interface DomainRecheckRun {
  /** Claims the schedule listed as due. */
  readonly due: number;
  /** Records still there: verified for another day. */
  readonly confirmed: number;
  /** Records gone: the domain is unverified and its claim released. */
  readonly unverified: number;
  /** Look-ups that failed (DNS down, a timeout): tried again in an hour, the domain kept as it is. */
  readonly failed: number;
  /** Claims another run took first, or whose organization or domain changed meanwhile. */
  readonly skipped: number;
  /** Not looked up because the run's time was up; still due. */
  readonly deferred: number;
}

type Outcome = 'confirmed' | 'unverified' | 'failed' | 'skipped';

const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

/**
 * Verified SSO domains are looked up again about once a day, by the
 * same tick that starts scheduled syncs (the EventBridge rule in the
 * cloud, a timer on one machine). For each claim due:
 *
 * 1. its next check moves an hour on, in one conditional write, so of two
 *    runs at once exactly one looks it up (and a run that dies mid-way
 *    leaves it due again in an hour);
 * 2. the TXT record is looked up as verification does:
 *    - the verification value is there: `checked_at` is now, the next check
 *      a day on;
 *    - the name has no such value (NXDOMAIN, no TXT record, other values):
 *      the domain becomes `unverified` (when, and why in `last_error`) and
 *      its claim is released; it admits no new SSO users, routes no
 *      `?email=` sign-in and extends no `enforce_sso` until verified again;
 *    - the look-up fails (a DNS server failing or timing out): nothing is
 *      concluded, the failure is recorded in `last_error` and the check
 *      runs again in an hour.
 *
 * A claim whose domain is no longer verified (deleted, or unverified by a
 * run that stopped before releasing it) is released.
 */
export async function recheckSsoDomains(
  deps: DomainRecheckDependencies,
  options: DomainRecheckOptions = {},
): Promise<DomainRecheckRun> {
  const now = deps.clock.now();
  const due = await deps.ssoRepository.listDueForCheck(now.toISOString());
  const counts: Record<Outcome | 'deferred', number> = {
    confirmed: 0,
    unverified: 0,
    failed: 0,
    skipped: 0,
    deferred: 0,
  };
  // One at a time: a handful of look-ups a day per organization, each bounded by the resolver's timeout.
  for (const check of due) {
    if (options.signal?.aborted) {
      counts.deferred += 1;
      continue;
    }
    counts[await recheck(deps, check, now)] += 1;
  }
  return { due: due.length, ...counts };
}

async function recheck(
  deps: DomainRecheckDependencies,
  check: DueDomainCheck,
  now: Date,
): Promise<Outcome> {
  const { ssoRepository } = deps;
  const retryAt = later(now, DOMAIN_RECHECK.retryMs);
  if (!(await ssoRepository.moveNextCheck(check, retryAt))) return 'skipped';
  const at = now.toISOString();
  const record = await ssoRepository.getDomain(check.orgId, check.domain);
  if (record?.status !== 'verified') {
    // Releases the claim; a domain that is not verified is left as it is.
    await ssoRepository.markUnverified(check.orgId, check.domain, at, 'not verified');
    return 'skipped';
  }
  let published: string[];
  try {
    published = await deps.txtResolver.resolveTxt(record.txt_record.name);
  } catch {
    await ssoRepository.recordFailedCheck(
      check.orgId,
      check.domain,
      at,
      'Re-check: DNS look-up failed; still verified, tried again within the hour',
    );
    return 'failed';
  }
  if (published.some((value) => value.trim() === record.txt_record.value)) {
    await ssoRepository.recordConfirmedCheck(check.orgId, check.domain, at);
    await ssoRepository.moveNextCheck(
      { ...check, nextCheckAt: retryAt },
      later(now, DOMAIN_RECHECK.intervalMs),
    );
    return 'confirmed';
  }
  await ssoRepository.markUnverified(
    check.orgId,
    check.domain,
    at,
    `Re-check: no TXT record ${record.txt_record.name} with the verification value; publish it, then verify again`,
  );
  return 'unverified';
}
