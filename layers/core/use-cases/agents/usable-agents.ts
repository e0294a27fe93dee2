import type { Agent } from '../../domain/agent';
import { usableBy } from '../../domain/agent-access';
import { agentAccessOf, type Principal } from '../../domain/principal';
import type { AgentRepository } from '../../ports/agent-repository.port';

/**
 * The agents a caller can ask now: those of its organization it may use (an
 * API key every one, a user as their groups allow) that are not disabled, in
 * the repository's order. What an MCP host or an OpenAI client is offered to
 * choose from, so it never picks one that would refuse it.
 */
export async function usableAgents(
  deps: { readonly agents: Pick<AgentRepository, 'list'> },
  principal: Principal,
): Promise<Agent[]> {
  const all = await deps.agents.list(principal.orgId, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
  });
  return usableBy(agentAccessOf(principal), all.items, (agent) => agent.id).filter(
    (agent) => agent.status === 'active',
  );
}
