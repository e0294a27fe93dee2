import { Logger } from '@aws-lambda-powertools/logger';
import { actorId, actorOf } from '../../layers/core/domain/actor';
import type { Principal } from '../../layers/core/domain/principal';

const logger = new Logger({ serviceName: 'svc-users' });

/**
 * One line per change to people, naming who made it as `actor`: the
 * key (`key_…`) or the signed-in user (`usr_…`), as the change's event
 * does. Ids only, never emails or invitation tokens.
 */
export function logPeopleChange(
  operation: string,
  request: { readonly principal: Principal; readonly requestId: string },
  target: { readonly user_id?: string | undefined; readonly group_id?: string | undefined },
): void {
  logger.info('people changed', {
    operation,
    request_id: request.requestId,
    org_id: request.principal.orgId,
    actor: actorId(actorOf(request.principal)),
    ...target,
  });
}
