import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { formatNumber } from '../../format/format';
import { useApp } from '../../state/app-context';
import { type Agent, agentPermissions, STRATEGIES } from './agents.state';
import { Playground } from './playground';
import { SearchTab } from './search-tab';

const TABS = [
  { id: 'playground', label: 'Playground' },
  { id: 'search', label: 'Search' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/**
 * An agent: what it is, "Edit" and "Delete" for those who may change it,
 * and two tabs: the playground (ask it) and semantic search
 * over its data sources. The tab is in the address (`?tab=search`), so a
 * reload or a shared link opens the same one.
 */
export function AgentPage({ agentId }: { readonly agentId: string }) {
  const { session } = useApp();
  const location = useLocation();
  const may = agentPermissions(session.me.value);
  const agent = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } }, signal })),
    [agentId],
  );
  const tab: TabId = location.query.tab === 'search' ? 'search' : 'playground';
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const choose = (next: TabId, focus = false) => {
    location.route(
      next === 'playground' ? `/agents/${agentId}` : `/agents/${agentId}?tab=${next}`,
      true,
    );
    if (focus) tabs.current[TABS.findIndex((entry) => entry.id === next)]?.focus();
  };
  // The tabs pattern: arrow keys move between tabs, Home and End to the ends.
  const onTabKey = (event: KeyboardEvent) => {
    const index = TABS.findIndex((entry) => entry.id === tab);
    const moves: Record<string, number> = {
      ArrowRight: (index + 1) % TABS.length,
      ArrowLeft: (index - 1 + TABS.length) % TABS.length,
      Home: 0,
      End: TABS.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    choose(TABS[next]?.id ?? 'playground', true);
  };

  const current = agent.data.value;
  return (
    <section class="screen" aria-labelledby="agent-heading">
      <p class="breadcrumb">
        <a href="/agents">Agents</a>
      </p>
      {agent.error.value ? (
        <>
          <h1 id="agent-heading">Agent</h1>
          <ErrorNotice error={agent.error.value} />
        </>
      ) : null}
      {agent.loading.value && !current ? <p role="status">Loading the agent…</p> : null}
      {current ? (
        <>
          <div class="screen__title">
            <h1 id="agent-heading">{current.name}</h1>
            {may.change ? (
              <div class="screen__actions">
                <a class="button" href={`/agents/${current.id}/edit`}>
                  Edit
                </a>
                <DeleteAgent agent={current} />
              </div>
            ) : null}
          </div>
          <AgentSummary agent={current} />
          <div class="tabs" role="tablist" aria-label="Use the agent">
            {TABS.map((entry, index) => (
              <button
                key={entry.id}
                type="button"
                role="tab"
                id={`agent-tab-${entry.id}`}
                aria-selected={tab === entry.id}
                aria-controls={`agent-panel-${entry.id}`}
                tabIndex={tab === entry.id ? 0 : -1}
                ref={(element) => {
                  tabs.current[index] = element;
                }}
                onClick={() => choose(entry.id)}
                onKeyDown={onTabKey}
              >
                {entry.label}
              </button>
            ))}
          </div>
          <div
            class="tab-panel"
            role="tabpanel"
            id={`agent-panel-${tab}`}
            aria-labelledby={`agent-tab-${tab}`}
          >
            {tab === 'playground' ? <Playground agent={current} /> : <SearchTab agent={current} />}
          </div>
        </>
      ) : null}
    </section>
  );
}

function AgentSummary({ agent }: { readonly agent: Agent }) {
  const strategy = STRATEGIES.find((entry) => entry.value === agent.rag_strategy);
  return (
    <dl class="facts agent-summary">
      <dt>Status</dt>
      <dd>
        <span class="status" data-status={agent.status}>
          {agent.status === 'active' ? 'Active' : 'Disabled: refuses questions'}
        </span>
      </dd>
      <dt>Model</dt>
      <dd>{agent.model}</dd>
      <dt>Strategy</dt>
      <dd>{strategy?.label ?? agent.rag_strategy}</dd>
      <dt>Data sources</dt>
      <dd>{formatNumber(agent.data_source_ids.length)}</dd>
    </dl>
  );
}

/** "Delete" asks first, in a dialog naming the agent; the list is shown once it is gone. */
function DeleteAgent({ agent }: { readonly agent: Agent }) {
  const { session } = useApp();
  const location = useLocation();
  const open = useSignal(false);
  const remove = useAction(async () => {
    await unwrap(session.api.DELETE('/api/v1/agents/{id}', { params: { path: { id: agent.id } } }));
    open.value = false;
    location.route('/agents');
  });
  return (
    <>
      <button
        type="button"
        class="button button--danger"
        onClick={() => {
          open.value = true;
        }}
      >
        Delete
      </button>
      <ConfirmDialog
        open={open.value}
        onClose={() => {
          open.value = false;
        }}
        question={`Delete “${agent.name}”?`}
        confirm="Delete agent"
        action={remove}
      >
        <p>
          The agent stops answering at once, and applications that ask it by its id get “not found”.
          Its past interactions stay in Interactions. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
