import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { useApp } from '../../app/context';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import './agents.css';

const PAGE_SIZE = 20;

/** `?page=` as a page number from 1; anything else is the first page. */
export function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The organization's agents, newest first, a page at a time (the page is in the address). */
export default function Agents() {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const agents = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/agents', {
          params: { query: { limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) } },
          signal,
        }),
      ),
    [page],
  );
  const list = agents.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;

  return (
    <section class="screen" aria-labelledby="agents-heading">
      <h1 id="agents-heading">Agents</h1>
      {agents.error.value ? <ErrorNotice error={agents.error.value} /> : null}
      {agents.loading.value && !list ? <p role="status">Loading agents…</p> : null}
      {list && list.total === 0 ? (
        <p>No agents yet. An agent answers questions from the data sources it is given.</p>
      ) : null}
      {list && list.agents.length > 0 ? (
        <>
          <div class="table-scroll">
            <table class="table">
              <caption>
                {formatNumber(list.total)} {list.total === 1 ? 'agent' : 'agents'}
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
                    <th scope="row">{agent.name}</th>
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
          </div>
          {pages > 1 ? (
            <nav class="pager" aria-label="Pages of agents">
              {page > 1 ? <a href={`/agents?page=${page - 1}`}>Previous page</a> : null}
              <span>
                Page {page} of {pages}
              </span>
              {page < pages ? <a href={`/agents?page=${page + 1}`}>Next page</a> : null}
            </nav>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
