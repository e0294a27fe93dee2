import type { Logger } from '@aws-lambda-powertools/logger';
import { AddressNotAllowedError } from '../../domain/errors';
import { MetricUnit, serviceMetrics } from '../../observability/metrics';
import type { OrganizationPolicies } from '../organization-policies';
import type { HttpMiddleware, HttpRequest } from '../request-state';

/**
 * A request whose organization keeps an IP allowlist must come from
 * inside it, whatever its credential (API key or session). The address is
 * the one API Gateway saw (`requestContext.identity.sourceIp`: the TCP
 * peer of the edge), never a header the client writes such as
 * `X-Forwarded-For`; behind the console's distribution, the viewer's as
 * CloudFront saw it, believed only with the distribution's secret (* the clientAddress middleware). Runs after authentication (the organization is known)
 * and before any limit is counted, so refused requests spend no tokens.
 * A refusal is `403 forbidden`, logged with the address and counted as
 * `IpAllowlistRefusals` (the address rides along as metadata, not as a
 * dimension: one metric, not one per address).
 */
export function ipAllowlist(options: {
  readonly policies: OrganizationPolicies;
  readonly logger: Pick<Logger, 'warn'>;
}): HttpMiddleware {
  const ipAllowlistBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const principal = state.principal;
    if (!principal || !state.route || state.route.access === 'public') return;
    const { allowlist } = await options.policies.of(principal);
    if (!allowlist) return;
    const sourceIp = state.sourceIp;
    if (allowlist.allows(sourceIp)) return;
    // A refused request does not extend the session it came with.
    state.setCookie = null;
    options.logger.warn('request refused by the IP allowlist', {
      request_id: state.requestId,
      org_id: principal.orgId,
      source_ip: sourceIp,
      key_id: principal.kind === 'api_key' ? principal.keyId : undefined,
      user_id: principal.kind === 'session' ? principal.userId : undefined,
    });
    const refusal = serviceMetrics().singleMetric();
    refusal.addMetadata('source_ip', sourceIp);
    refusal.addMetadata('org_id', principal.orgId);
    refusal.addMetric('IpAllowlistRefusals', MetricUnit.Count, 1);
    throw new AddressNotAllowedError(sourceIp);
  };
  return { before: ipAllowlistBefore };
}
