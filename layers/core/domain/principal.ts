import { type AgentAccess, ALL_AGENTS } from './agent-access';
import type { Environment } from './environments';
import type { Scope } from './scopes';
import type { Role } from './user';

/** A request made with an API key, once the key is verified. */
export interface ApiKeyPrincipal {
  readonly kind: 'api_key';
  readonly orgId: string;
  readonly keyId: string;
  readonly scopes: readonly Scope[];
  readonly environment: Environment;
}

/** A request made with a web session, once the token, its revocation and its user are checked. */
export interface SessionPrincipal {
  readonly kind: 'session';
  readonly orgId: string;
  readonly userId: string;
  /**
   * The user's effective role as stored now, the highest of theirs and
   * their groups' (issue 9 item 5; a change takes effect at the next request).
   */
  readonly role: Role;
  /** The agents this user may use, from their groups. */
  readonly agents: AgentAccess;
  /** The groups the user belongs to that exist now (those the role and agents come from). */
  readonly groupIds: readonly string[];
  readonly sessionId: string;
  /** When the user signed in (epoch seconds). */
  readonly authTime: number;
}

/** Who a request is: an API key or a signed-in user. */
export type Principal = ApiKeyPrincipal | SessionPrincipal;

/** The id a principal's rate buckets and records are kept under: the key's, or the user's. */
export function principalId(principal: Principal): string {
  return principal.kind === 'api_key' ? principal.keyId : principal.userId;
}

/** API keys use every agent of their organization; users as their groups allow. */
export function agentAccessOf(principal: Principal): AgentAccess {
  return principal.kind === 'session' ? principal.agents : ALL_AGENTS;
}
