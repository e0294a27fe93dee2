import { unwrap } from '../api/client';
import { type Loaded, useLoad } from '../api/use-load';
import { useApp } from '../state/app-context';
import './filters.css';

export interface AgentChoice {
  readonly id: string;
  readonly name: string;
}

/** Agents read for a filter: 200 a page (the lists' largest), at most this many pages. */
const PAGE = 200;
const PAGES = 10;

/**
 * The agents this person may see, for filters and for naming agents in
 * lists (Interactions, Analytics). A user confined to some agents by their
 * groups gets only those, so the choice never offers an agent whose
 * figures would be zeros. Failing to read them leaves the filter with "All
 * agents" only: the screen's own list still works.
 */
export function useAgentChoices(): Loaded<readonly AgentChoice[]> {
  const { session } = useApp();
  return useLoad(async (signal) => {
    const agents: AgentChoice[] = [];
    for (let page = 0; page < PAGES; page += 1) {
      const list = await unwrap(
        session.api.GET('/api/v1/agents', {
          params: { query: { limit: String(PAGE), offset: String(page * PAGE) } },
          signal,
        }),
      );
      agents.push(...list.agents.map((agent) => ({ id: agent.id, name: agent.name })));
      if (list.agents.length < PAGE || agents.length >= list.total) break;
    }
    return agents.sort((a, b) => a.name.localeCompare(b.name));
  }, []);
}

/**
 * A labelled `<select name="agent_id">`: "All agents", then each agent by
 * name. With `choose` (a run must name one agent) the first option is that
 * prompt instead and the browser requires a choice.
 */
export function AgentSelect({
  id,
  agents,
  value,
  choose,
}: {
  readonly id: string;
  readonly agents: readonly AgentChoice[] | null;
  readonly value: string;
  readonly choose?: string;
}) {
  const known = agents ?? [];
  const missing = value && !known.some((agent) => agent.id === value);
  return (
    <>
      <label for={id}>Agent</label>
      <select id={id} name="agent_id" key={`${value}:${known.length}`} required={!!choose}>
        <option value="" selected={!value}>
          {choose ?? 'All agents'}
        </option>
        {known.map((agent) => (
          <option key={agent.id} value={agent.id} selected={agent.id === value}>
            {agent.name}
          </option>
        ))}
        {missing ? (
          <option value={value} selected>
            {value}
          </option>
        ) : null}
      </select>
    </>
  );
}
