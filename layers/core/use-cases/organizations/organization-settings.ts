import { parseCidrRange } from '../../domain/cidr-range';
import { InvalidRequestError, NotFoundError, RequestRefusedError } from '../../domain/errors';
import { compileIpAllowlist } from '../../domain/ip-allowlist';
import { ORGANIZATION_LIMITS, type Organization, settingsOf } from '../../domain/organization';
import type { Plan } from '../../domain/plans';
import type { Clock } from '../../ports/clock.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';

export interface OrganizationSettingsDependencies {
  readonly organizations: Pick<OrganizationRepository, 'get' | 'update'>;
  readonly clock: Clock;
}

/** What an organization's administrator may send: the plan only as it already is. */
export interface OrganizationUpdate {
  readonly name?: string | undefined;
  /** Read-only here: accepted only when it repeats the current plan. */
  readonly plan?: Plan | undefined;
  readonly settings?: { readonly ip_allowlist?: readonly string[] | undefined } | undefined;
}

/** Who is asking, for the check that an administrator cannot lock themselves out. */
export interface SettingsCaller {
  /** The address API Gateway saw for this request. */
  readonly sourceIp: string;
}

/**
 * Administrators see their own organization only; any other id, in use
 * or not, is 404 like another organization's agent (tenant isolation).
 */
export async function getOwnOrganization(
  deps: Pick<OrganizationSettingsDependencies, 'organizations'>,
  callerOrgId: string,
  id: string,
): Promise<Organization> {
  const organization = id === callerOrgId ? await deps.organizations.get(id) : null;
  if (!organization) throw new NotFoundError(`No organization ${id}`);
  return organization;
}

/**
 * `PUT /api/v1/organizations/:id`: the name and the
 * settings given (others unchanged). The IP allowlist is checked range by
 * range (400 naming each bad entry), needs the enterprise plan to be set
 * (the spec: "enterprise only"; clearing it is always allowed), and must
 * keep allowing the address the request came from, so an administrator
 * cannot lock everyone out by mistake (the operator CLI can still clear it,
 * `svc orgs update --clear-ip-allowlist`).
 */
export async function updateOwnOrganization(
  deps: OrganizationSettingsDependencies,
  callerOrgId: string,
  id: string,
  input: OrganizationUpdate,
  caller: SettingsCaller,
): Promise<Organization> {
  const current = await getOwnOrganization(deps, callerOrgId, id);
  if (input.plan !== undefined && input.plan !== current.plan) {
    throw new InvalidRequestError(
      `The plan is read-only here (it is ${current.plan}); the service's operator changes it`,
      { fields: [{ path: 'plan', message: 'read-only' }] },
    );
  }
  const requested = input.settings?.ip_allowlist;
  const settings = settingsOf(current);
  let ipAllowlist = settings.ip_allowlist;
  if (requested !== undefined) {
    ipAllowlist = canonicalAllowlist(requested);
    if (ipAllowlist.length > 0 && current.plan !== 'enterprise') {
      throw new RequestRefusedError(
        `An IP allowlist needs the enterprise plan (this organization is on ${current.plan})`,
        { reason: 'plan_required', required_plan: 'enterprise', current_plan: current.plan },
      );
    }
    const compiled = compileIpAllowlist(ipAllowlist);
    if (compiled && !compiled.allows(caller.sourceIp)) {
      throw new InvalidRequestError(
        `This allowlist would refuse your own address ${caller.sourceIp}, and with it this session: add a range that contains it`,
        {
          fields: [{ path: 'settings.ip_allowlist', message: 'excludes your own address' }],
          source_ip: caller.sourceIp,
        },
      );
    }
  }
  const updated = await deps.organizations.update(id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    settings: { ...settings, ip_allowlist: ipAllowlist },
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) throw new NotFoundError(`No organization ${id}`);
  return updated;
}

/**
 * The operator's changes (`svc orgs update`): the plan, the name, and
 * clearing the IP allowlist, the way back in for an organization that
 * locked itself out. No address check: the operator works on the
 * table, not through the API.
 */
export async function operatorUpdateOrganization(
  deps: OrganizationSettingsDependencies,
  id: string,
  input: {
    readonly name?: string | undefined;
    readonly plan?: Plan | undefined;
    readonly clearIpAllowlist?: boolean | undefined;
  },
): Promise<Organization> {
  const current = await deps.organizations.get(id);
  if (!current) throw new NotFoundError(`No organization ${id}`);
  const updated = await deps.organizations.update(id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.plan !== undefined ? { plan: input.plan } : {}),
    ...(input.clearIpAllowlist ? { settings: { ...settingsOf(current), ip_allowlist: [] } } : {}),
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) throw new NotFoundError(`No organization ${id}`);
  return updated;
}

/**
 * Each range checked and written in canonical form, duplicates
 * dropped, order kept; every bad entry named in one 400.
 */
function canonicalAllowlist(ranges: readonly string[]): string[] {
  if (ranges.length > ORGANIZATION_LIMITS.ipAllowlistMax) {
    throw new InvalidRequestError(
      `An IP allowlist holds at most ${ORGANIZATION_LIMITS.ipAllowlistMax} ranges`,
      { fields: [{ path: 'settings.ip_allowlist', message: 'too many ranges' }] },
    );
  }
  const problems: Array<{ path: string; message: string }> = [];
  const canonical: string[] = [];
  ranges.forEach((text, index) => {
    const parsed = parseCidrRange(text.trim());
    if (parsed.ok) canonical.push(parsed.range);
    else problems.push({ path: `settings.ip_allowlist.${index}`, message: parsed.problem });
  });
  if (problems.length > 0) {
    throw new InvalidRequestError(
      `Invalid IP allowlist: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`,
      { fields: problems },
    );
  }
  return [...new Set(canonical)];
}
