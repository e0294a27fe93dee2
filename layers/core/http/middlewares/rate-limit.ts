import { Readable } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  admitRequest,
  type RateLimitDependencies,
  releaseAdmission,
} from '../../use-cases/limits/admit-request';
import type { OrganizationPolicies } from '../organization-policies';
import type { HttpMiddleware, HttpRequest } from '../request-state';
import { withCleanupAtEnd } from '../streaming';

/**
 * How long a request may run when its context does not say (no Lambda
 * deadline): Lambda's longest, so a lease never ends before its request.
 */
const LONGEST_REQUEST_MS = 15 * 60_000;

/** Past the deadline, for clocks of different function instances that differ a little. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Every limit of the route's scope and the organization's plan, then a
 * concurrency lease held until the response ends — when the chain ends, or
 * for a streamed body when the stream does — and released on errors
 * too. The scope bucket is a key's, or for a session the user's bucket of
 * the same size. Public routes (signing in) have their own throttle.
 * A function that dies mid-request leaves its lease to expire at its
 * deadline. The scope bucket's state is kept for the response headers,
 * refusals included.
 */
export function rateLimit(options: {
  readonly limits: () => RateLimitDependencies;
  /** The organization's plan, read once with its allowlist and cached. */
  readonly policies: OrganizationPolicies;
  readonly now?: () => number;
  /** Where a failed release is reported; the lease then expires on its own. */
  readonly logger?: Pick<Logger, 'warn'>;
}): HttpMiddleware {
  const now = options.now ?? Date.now;
  const releases = new WeakMap<HttpRequest, () => Promise<void>>();

  const rateLimitBefore = async (request: HttpRequest): Promise<void> => {
    const state = request.context.svc;
    const route = state.route;
    if (!state.principal || !route || route.access === 'public') return;
    const { limits } = await options.policies.of(state.principal);
    const at = now();
    // Lambda ends an invocation at its deadline, streamed or not: the lease need not outlive it.
    const remainingMs = request.context.getRemainingTimeInMillis?.() ?? LONGEST_REQUEST_MS;
    const admission = await admitRequest(options.limits(), {
      principal: state.principal,
      scope: route.scope,
      limits,
      spendsTokens: route.spendsTokens === true,
      requestId: state.requestId,
      now: at,
      leaseExpiresAt: at + remainingMs + LEASE_MARGIN_MS,
    });
    state.rateLimit = admission.bucket;
    let released = false;
    releases.set(request, async () => {
      if (released) return;
      released = true;
      try {
        await releaseAdmission(options.limits(), admission);
      } catch (error) {
        options.logger?.warn('lease release failed; it expires on its own', {
          request_id: state.requestId,
          error: error as Error,
        });
      }
    });
  };

  const rateLimitAfter = async (request: HttpRequest): Promise<void> => {
    const release = releases.get(request);
    if (!release) return;
    const response = request.response as { body: unknown } | undefined;
    if (response?.body instanceof Readable) {
      response.body = withCleanupAtEnd(response.body, release);
      return;
    }
    await release();
  };

  // Also after an `after` step failed: a stream that will never be read releases here (once).
  const rateLimitOnError = async (request: HttpRequest): Promise<void> => {
    await releases.get(request)?.();
  };

  return { before: rateLimitBefore, after: rateLimitAfter, onError: rateLimitOnError };
}
