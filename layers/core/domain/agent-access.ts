/**
 * Which agents a caller may use. API keys and users outside any
 * restricting group use every agent of their organization; a user whose
 * every group restricts uses the union of those groups' agents.
 */
export type AgentAccess =
  | { readonly kind: 'all' }
  | { readonly kind: 'only'; readonly agentIds: ReadonlySet<string> };

export const ALL_AGENTS: AgentAccess = { kind: 'all' };

/** May the caller see and use agent `agentId`? (If not, it answers as if it did not exist.) */
export function mayUseAgent(access: AgentAccess, agentId: string): boolean {
  return access.kind === 'all' || access.agentIds.has(agentId);
}

/** The items whose agent the caller may use (lists and sums count nothing else). */
export function usableBy<T>(
  access: AgentAccess,
  items: readonly T[],
  agentOf: (item: T) => string,
): T[] {
  return access.kind === 'all'
    ? [...items]
    : items.filter((item) => access.agentIds.has(agentOf(item)));
}
