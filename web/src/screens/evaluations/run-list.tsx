import { useEffect, useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { useLoad } from '../../api/use-load';
import { AgentSelect, useAgentChoices } from '../../components/agent-select';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  compareHref,
  EVALUATIONS_PATH,
  isRunning,
  listHref,
  listQueryOf,
  PAGE_SIZE,
  progressSentence,
} from './evaluations.state';
import { loadRuns } from './evaluations-api';
import { formatRatio, runTitle, StatusBadge } from './run-parts';

/** While a run on the page is going, the list is read again this often. */
const REFRESH_MS = 3_000;

/** The runs, newest first, 20 a page, all agents' or one agent's (in the address). */
export function RunList({ canStart }: { readonly canStart: boolean }) {
  const { session } = useApp();
  const location = useLocation();
  const query = listQueryOf(location.query);
  const agents = useAgentChoices();
  const names = useMemo(
    () => new Map((agents.data.value ?? []).map((agent) => [agent.id, agent.name])),
    [agents.data.value],
  );
  const list = useLoad(
    (signal) =>
      loadRuns(
        session.api,
        { agentId: query.agentId, limit: PAGE_SIZE, offset: (query.page - 1) * PAGE_SIZE },
        signal,
      ),
    [query.agentId, query.page],
  );
  const page = list.data.value;
  const running = page?.evals.some(isRunning) ?? false;
  // A running run's progress moves on the list too, without a reload.
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(async () => {
      try {
        list.data.value = await loadRuns(session.api, {
          agentId: query.agentId,
          limit: PAGE_SIZE,
          offset: (query.page - 1) * PAGE_SIZE,
        });
      } catch {
        // The next render tries again; the list on screen stays as it was.
      }
    }, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [page, running]);
  const pages = page ? Math.max(1, Math.ceil(page.total / PAGE_SIZE)) : 1;

  const onFilter = (event: Event) => {
    event.preventDefault();
    const agentId = String(new FormData(event.currentTarget as HTMLFormElement).get('agent_id'));
    location.route(listHref({ agentId: agentId || null, page: 1 }));
  };

  return (
    <section class="screen" aria-labelledby="evaluations-heading">
      <div class="eval-heading">
        <h1 id="evaluations-heading">Evaluations</h1>
        <div class="eval-heading__actions">
          <a class="button" href={compareHref(query.agentId, null, null)}>
            Compare two runs
          </a>
          {canStart ? (
            <a class="button button--primary" href={`${EVALUATIONS_PATH}/new`}>
              New evaluation
            </a>
          ) : null}
        </div>
      </div>
      <p class="eval-intro">
        An evaluation asks an agent a set of questions and scores each answer against its sources
        and what was expected, without a model judging (how each score is computed:
        docs/evaluations.md).
      </p>
      <form class="filters" aria-label="Filter runs" onSubmit={onFilter}>
        <div class="filters__field">
          <AgentSelect
            id="eval-filter-agent"
            agents={agents.data.value}
            value={query.agentId ?? ''}
          />
        </div>
        <div class="filters__actions">
          <button type="submit" class="button">
            Show
          </button>
        </div>
      </form>
      {list.error.value ? <ErrorNotice error={list.error.value} /> : null}
      {list.loading.value && !page ? <p role="status">Loading evaluations…</p> : null}
      {page && page.total === 0 ? (
        <div class="empty">
          <p>
            {query.agentId
              ? 'This agent has no evaluation yet.'
              : 'No evaluation has been run yet.'}{' '}
            An evaluation asks an agent a set of questions and checks its answers.
          </p>
          {canStart ? (
            <a class="button" href={`${EVALUATIONS_PATH}/new`}>
              Run the first evaluation
            </a>
          ) : null}
        </div>
      ) : null}
      {page && page.total > 0 ? (
        <>
          <TableScroll label="Runs">
            <table class="table">
              <caption>
                {page.total} {page.total === 1 ? 'run' : 'runs'}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Status</th>
                  <th scope="col">Pass rate</th>
                  <th scope="col">Answer support</th>
                  <th scope="col">Retrieval recall</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {page.evals.map((run) => (
                  <tr key={run.id}>
                    <th scope="row">
                      <a href={`${EVALUATIONS_PATH}/${run.id}`}>{runTitle(run)}</a>
                    </th>
                    <td>{names.get(run.agent_id) ?? run.agent_id}</td>
                    <td>
                      <StatusBadge status={run.status} />
                      <span class="eval-muted">
                        {' '}
                        {isRunning(run)
                          ? progressSentence(run)
                          : `${run.question_count} ${run.question_count === 1 ? 'question' : 'questions'}`}
                      </span>
                    </td>
                    <td>{formatRatio(run.totals?.pass_rate)}</td>
                    <td>{formatRatio(run.totals?.answer_support)}</td>
                    <td>{formatRatio(run.totals?.retrieval_recall)}</td>
                    <td>{formatDateTime(run.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <Pager
            label="Pages of runs"
            page={query.page}
            pages={pages}
            hrefOf={(n) => listHref({ ...query, page: n })}
          />
        </>
      ) : null}
    </section>
  );
}
