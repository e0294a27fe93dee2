import type { Principal } from './principal';

/**
 * Who changed a user or a group, as `user.created` / `user.updated`
 * events and the `users` function's logs name them: a user (signed in, or
 * accepting their own invitation or signing in through SSO), or an API key
 * with the Admin scope. Where no request is behind a change (the operator's
 * CLI, the local runtime's bootstrap administrator) events carry `actor: null`.
 */
export type Actor =
  | { readonly kind: 'user'; readonly user_id: string }
  | { readonly kind: 'api_key'; readonly key_id: string };

/** The actor a request is: its key, or its signed-in user. */
export function actorOf(principal: Principal): Actor {
  return principal.kind === 'api_key'
    ? { kind: 'api_key', key_id: principal.keyId }
    : { kind: 'user', user_id: principal.userId };
}

/** The actor's id (`key_…` or `usr_…`), for log lines. */
export function actorId(actor: Actor): string {
  return actor.kind === 'api_key' ? actor.key_id : actor.user_id;
}
