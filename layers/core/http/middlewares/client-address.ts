import { ServiceUnavailableError } from '../../domain/errors';
import { clientAddressOf, type OriginSecret } from '../client-address';
import type { HttpMiddleware, HttpRequest } from '../request-state';

/** Seconds a caller is asked to wait when the origin secret cannot be read for now. */
const SECRET_RETRY_AFTER_SECONDS = 5;

/**
 * Settles the address the request is judged by before anything
 * judges it (the allowlist, the sign-in throttle, the own-address check):
 * the viewer's when the request proves it came through the console's
 * distribution, else API Gateway's `sourceIp` as before (clientAddressOf).
 * A secret that cannot be read is a `503` to retry, never a guess either
 * way: the request carried the header, so it came (or claims to come)
 * through CloudFront, whose own address would refuse an allowlisted user.
 */
export function clientAddress(options: {
  readonly originSecret: () => OriginSecret | undefined;
}): HttpMiddleware {
  const clientAddressBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const originSecret = options.originSecret();
    if (!originSecret) return;
    const guarded: OriginSecret = async () => {
      try {
        return await originSecret();
      } catch (error) {
        throw new ServiceUnavailableError(
          'The request cannot be checked for now',
          SECRET_RETRY_AFTER_SECONDS,
          { cause: error },
        );
      }
    };
    state.sourceIp = await clientAddressOf(request.event, guarded);
  };
  return { before: clientAddressBefore };
}
