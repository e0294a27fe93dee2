import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { agentPermissions, listPath, pageOf } from './agents.state';
import { FirstStepsChecklist } from './first-steps-checklist';

const PAGE_SIZE = 20;
/** Typing pauses this long before the list is asked again. */
const SEARCH_DELAY_MS = 300;

/**
 * The organization's agents (the ones this person's groups allow),
 * newest first, 20 a page; the search box keeps those whose name contains
 * what is typed (`?q=`). Only people who may create agents see "New
 * agent".
 */
export function AgentList() {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const search = (location.query.q ?? '').trim();
  const may = agentPermissions(session.me.value);
  const agents = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/agents', {
          params: {
            query: {
              limit: String(PAGE_SIZE),
              offset: String((page - 1) * PAGE_SIZE),
              ...(search ? { q: search } : {}),
            },
          },
          signal,
        }),
      ),
    [page, search],
  );
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onSearch = (value: string, now = false) => {
    clearTimeout(timer.current);
    const go = () => location.route(listPath(value, 1), true);
    if (now) go();
    else timer.current = setTimeout(go, SEARCH_DELAY_MS);
  };
  const list = agents.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;

  return (
    <section class="screen" aria-labelledby="agents-heading">
      <div class="screen__title">
        <h1 id="agents-heading">Agents</h1>
        {may.create ? (
          <a class="button button--primary" href="/agents/new">
            New agent
          </a>
        ) : null}
      </div>
      <search>
        <form
          class="search-box"
          onSubmit={(event) => {
            event.preventDefault();
            const data = new FormData(event.currentTarget);
            onSearch(String(data.get('q') ?? ''), true);
          }}
        >
          <label for="agents-search">Search agents</label>
          <input
            id="agents-search"
            name="q"
            type="search"
            maxLength={200}
            defaultValue={search}
            autoComplete="off"
            onInput={(event) => onSearch(event.currentTarget.value)}
          />
        </form>
      </search>
      {agents.error.value ? <ErrorNotice error={agents.error.value} /> : null}
      {agents.loading.value && !list ? <p role="status">Loading agents…</p> : null}
      {list && list.total === 0 && !search ? (
        <div class="notice">
          <p>
            No agents yet. An agent answers questions from the data sources and knowledge base it is
            given.
          </p>
          {may.create ? (
            <a class="button button--primary" href="/agents/new">
              Make the first agent
            </a>
          ) : (
            <p>Someone who may configure agents can make the first one.</p>
          )}
        </div>
      ) : null}
      {list && list.total === 0 && search ? (
        <p role="status">No agent’s name contains “{search}”.</p>
      ) : null}
      {list && list.agents.length > 0 ? (
        <>
          <TableScroll label="Agents">
            <table class="table">
              <caption>
                {formatNumber(list.total)} {list.total === 1 ? 'agent' : 'agents'}
                {search ? ` named like “${search}”` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Data sources</th>
                  <th scope="col">Status</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {list.agents.map((agent) => (
                  <tr key={agent.id}>
                    <th scope="row">
                      <a href={`/agents/${agent.id}`}>{agent.name}</a>
                    </th>
                    <td>{agent.model}</td>
                    <td>{formatNumber(agent.data_source_ids.length)}</td>
                    <td>
                      <span class="status" data-status={agent.status}>
                        {agent.status === 'active' ? 'Active' : 'Disabled'}
                      </span>
                    </td>
                    <td>
                      <time dateTime={agent.updated_at} title={formatDateTime(agent.updated_at)}>
                        {formatRelative(agent.updated_at)}
                      </time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <Pager
            label="Pages of agents"
            page={page}
            pages={pages}
            hrefOf={(n) => listPath(search, n)}
          />
        </>
      ) : null}
      {/* Under the list, once it is in: arriving later, it moves nothing already shown. */}
      {may.create && list ? <FirstStepsChecklist /> : null}
    </section>
  );
}
