import { useSignal } from '@preact/signals';
import { useCallback, useMemo, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { AgentSelect, useAgentChoices } from '../../components/agent-select';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { formatDateTime, formatNumber, formatRelative, formatWait } from '../../format/format';
import { formatLatency } from '../../format/measures';
import { useApp } from '../../state/app-context';
import {
  downloadText,
  EXPORT_MAX_ROWS,
  type ExportProgress,
  exportFileName,
  fetchAllPages,
  interactionsCsv,
} from './export-csv';
import { InteractionDialog } from './interaction-dialog';
import { askerLabel, feedbackLabel } from './interaction-format';
import {
  type AnsweredFilter,
  addressOf,
  apiFilters,
  type FeedbackFilter,
  filterProblem,
  filtersFromQuery,
  hasFilters,
  type Interaction,
  type InteractionFilters,
  PAGE_SIZE,
  SEARCH_MAX,
} from './interactions.state';
import './interactions.css';
import { TableScroll } from '../../components/table-scroll';

/**
 * The organization's interactions, newest first, with who asked each by
 * name; searched in the question and answer text and filtered by agent,
 * dates, feedback and whether the agent could answer (the filters and the
 * page are in the address); one opens in full; the filtered list, every page
 * of it, downloads as CSV.
 */
export default function Interactions() {
  const { session } = useApp();
  const location = useLocation();
  const filters = filtersFromQuery(location.query);
  const agents = useAgentChoices();
  const agentNames = useMemo(
    () => new Map((agents.data.value ?? []).map((agent) => [agent.id, agent.name])),
    [agents.data.value],
  );
  const list = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/interactions', {
          params: {
            query: {
              ...apiFilters(filters),
              limit: String(PAGE_SIZE),
              offset: String((filters.page - 1) * PAGE_SIZE),
            },
          },
          signal,
        }),
      ),
    [
      filters.agentId,
      filters.startDate,
      filters.endDate,
      filters.feedback,
      filters.text,
      filters.answered,
      filters.page,
    ],
  );
  const open = useSignal<Interaction | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const close = useCallback(() => {
    open.value = null;
    opener.current?.focus();
  }, []);

  const page = list.data.value;
  const pages = page ? Math.max(1, Math.ceil(page.total / PAGE_SIZE)) : 1;
  const nameOf = (agentId: string) => agentNames.get(agentId) ?? agentId;

  return (
    <section class="screen" aria-labelledby="interactions-heading">
      <h1 id="interactions-heading">Interactions</h1>
      <Filters
        filters={filters}
        agents={agents.data.value}
        onApply={(next) => location.route(addressOf(next))}
      />
      {list.error.value ? <ErrorNotice error={list.error.value} /> : null}
      {list.loading.value && !page ? <p role="status">Loading interactions…</p> : null}
      {page && page.total === 0 ? (
        <div class="empty">
          <p>
            {hasFilters(filters)
              ? 'No interactions match these filters. Widen the dates or clear a filter.'
              : 'No questions have been asked yet. Every question asked of an agent appears here.'}
          </p>
          {hasFilters(filters) ? null : (
            <a class="button" href="/agents">
              Ask an agent a question
            </a>
          )}
        </div>
      ) : null}
      {page && page.total > 0 ? (
        <>
          <ExportButton filters={filters} total={page.total} agentNames={agentNames} />
          <TableScroll label="Interactions">
            <table class="table interactions-table">
              <caption>
                {formatNumber(page.total)} {page.total === 1 ? 'interaction' : 'interactions'}
                {hasFilters(filters)
                  ? page.total === 1
                    ? ' matches the filters'
                    : ' match the filters'
                  : ''}
                , newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Question</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Feedback</th>
                  <th scope="col">Sources</th>
                  <th scope="col">Latency</th>
                </tr>
              </thead>
              <tbody>
                {page.interactions.map((interaction) => (
                  <tr key={interaction.id}>
                    <th scope="row">
                      <button
                        type="button"
                        class="interactions-table__question"
                        onClick={(event) => {
                          opener.current = event.currentTarget;
                          open.value = interaction;
                        }}
                      >
                        {interaction.query}
                      </button>
                    </th>
                    <td>
                      <Asker asker={interaction.asked_by} />
                    </td>
                    <td>{nameOf(interaction.agent_id)}</td>
                    <td>
                      <time
                        dateTime={interaction.created_at}
                        title={formatDateTime(interaction.created_at)}
                      >
                        {formatRelative(interaction.created_at)}
                      </time>
                    </td>
                    <td>
                      <span class="feedback" data-feedback={interaction.feedback ?? 'none'}>
                        {feedbackLabel(interaction.feedback)}
                      </span>
                      {interaction.feedback_comment ? (
                        <span class="feedback__comment">, with a comment</span>
                      ) : null}
                    </td>
                    <td>{formatNumber(interaction.sources.length)}</td>
                    <td>{formatLatency(interaction.latency_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <Pager
            label="Pages of interactions"
            page={filters.page}
            pages={pages}
            hrefOf={(n) => addressOf({ ...filters, page: n })}
          />
        </>
      ) : null}
      {open.value ? (
        <InteractionDialog
          interaction={open.value}
          agentName={nameOf(open.value.agent_id)}
          onClose={close}
        />
      ) : null}
    </section>
  );
}

/** Who asked, in a table cell: their name, and their email (or "API key") under it. */
function Asker({ asker }: { readonly asker: Interaction['asked_by'] }) {
  const label = askerLabel(asker);
  return (
    <>
      <span class="asker__name">{label.name}</span>
      {label.detail ? <span class="asker__detail">{label.detail}</span> : null}
    </>
  );
}

const ANSWERED_CHOICES: ReadonlyArray<readonly [AnsweredFilter, string]> = [
  ['', 'Answered or not'],
  ['false', 'Not answered'],
  ['true', 'Answered'],
];

const FEEDBACK_CHOICES: ReadonlyArray<readonly [FeedbackFilter, string]> = [
  ['', 'Any feedback'],
  ['positive', 'Positive'],
  ['negative', 'Negative'],
  ['null', 'No feedback'],
];

/** The filter form (CONSOLE.md §7: uncontrolled, read on submit); applying goes to the first page. */
function Filters({
  filters,
  agents,
  onApply,
}: {
  readonly filters: InteractionFilters;
  readonly agents: ReadonlyArray<{ id: string; name: string }> | null;
  readonly onApply: (filters: InteractionFilters) => void;
}) {
  const problem = useSignal<string | null>(null);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = filtersFromQuery({
      agent_id: String(form.get('agent_id') ?? ''),
      start_date: String(form.get('start_date') ?? ''),
      end_date: String(form.get('end_date') ?? ''),
      feedback: String(form.get('feedback') ?? ''),
      q: String(form.get('q') ?? ''),
      answered: String(form.get('answered') ?? ''),
    });
    problem.value = filterProblem(next);
    if (!problem.value) onApply(next);
  };
  return (
    <form
      class="filters"
      aria-label="Filter interactions"
      onSubmit={submit}
      key={addressOf({ ...filters, page: 1 })}
    >
      <div class="filters__field filters__field--search">
        <label for="interactions-search">Search questions and answers</label>
        <input
          id="interactions-search"
          name="q"
          type="search"
          maxLength={SEARCH_MAX}
          defaultValue={filters.text}
          aria-describedby="interactions-search-hint"
        />
        <p id="interactions-search-hint" class="interactions-filter-hint">
          Finds these words, together and in this order, ignoring case.
        </p>
      </div>
      <div class="filters__field">
        <AgentSelect id="interactions-agent" agents={agents} value={filters.agentId} />
      </div>
      <div class="filters__field">
        <label for="interactions-from">From</label>
        <input
          id="interactions-from"
          name="start_date"
          type="date"
          defaultValue={filters.startDate}
          aria-describedby="interactions-dates-hint"
        />
      </div>
      <div class="filters__field">
        <label for="interactions-to">To</label>
        <input
          id="interactions-to"
          name="end_date"
          type="date"
          defaultValue={filters.endDate}
          aria-describedby="interactions-dates-hint"
        />
      </div>
      <div class="filters__field">
        <label for="interactions-feedback">Feedback</label>
        <select id="interactions-feedback" name="feedback">
          {FEEDBACK_CHOICES.map(([value, label]) => (
            <option key={value} value={value} selected={value === filters.feedback}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div class="filters__field">
        <label for="interactions-answered">Answered</label>
        <select
          id="interactions-answered"
          name="answered"
          aria-describedby="interactions-answered-hint"
        >
          {ANSWERED_CHOICES.map(([value, label]) => (
            <option key={value} value={value} selected={value === filters.answered}>
              {label}
            </option>
          ))}
        </select>
        <p id="interactions-answered-hint" class="interactions-filter-hint">
          Not answered: the agent said it could not find the answer in its sources.
        </p>
      </div>
      <div class="filters__actions">
        <button type="submit" class="button button--primary">
          Apply filters
        </button>
        {hasFilters(filters) ? <a href="/interactions">Clear filters</a> : null}
      </div>
      <p id="interactions-dates-hint" class="filters__hint">
        Whole days in UTC; both dates included.
      </p>
      {problem.value ? (
        <p class="filters__problem" role="alert">
          {problem.value}
        </p>
      ) : null}
    </form>
  );
}

/**
 * "Download CSV": pages through the whole filtered list (at most
 * EXPORT_MAX_ROWS, and it says so when cut), then saves it as a file.
 */
function ExportButton({
  filters,
  total,
  agentNames,
}: {
  readonly filters: InteractionFilters;
  readonly total: number;
  readonly agentNames: ReadonlyMap<string, string>;
}) {
  const { session } = useApp();
  const progress = useSignal<ExportProgress | null>(null);
  const outcome = useSignal<string | null>(null);
  const failure = useSignal<unknown>(null);
  const running = useRef<AbortController | null>(null);

  const start = async () => {
    const controller = new AbortController();
    running.current = controller;
    failure.value = null;
    outcome.value = null;
    progress.value = { fetched: 0, total, waiting: null };
    try {
      const result = await fetchAllPages(
        (limit, offset, signal) =>
          unwrap(
            session.api.GET('/api/v1/interactions', {
              params: {
                query: { ...apiFilters(filters), limit: String(limit), offset: String(offset) },
              },
              signal,
            }),
          ),
        {
          signal: controller.signal,
          onProgress: (next) => {
            progress.value = next;
          },
        },
      );
      downloadText(
        interactionsCsv(result.interactions, agentNames),
        exportFileName(filters.startDate, filters.endDate),
      );
      const count = formatNumber(result.interactions.length);
      outcome.value = result.truncated
        ? `Downloaded the newest ${count} of ${formatNumber(result.total)} interactions: an export holds at most ${formatNumber(EXPORT_MAX_ROWS)}. Narrow the dates for the rest.`
        : `Downloaded ${count} ${result.interactions.length === 1 ? 'interaction' : 'interactions'}.`;
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') {
        outcome.value = 'The export was stopped.';
      } else if (error instanceof ApiError && error.code === 'aborted') {
        outcome.value = 'The export was stopped.';
      } else {
        failure.value = error;
      }
    } finally {
      progress.value = null;
      running.current = null;
    }
  };

  const now = progress.value;
  return (
    <div class="export">
      {now ? (
        <>
          <button type="button" class="button" onClick={() => running.current?.abort()}>
            Stop the export
          </button>
          <p class="export__status" role="status">
            {now.waiting !== null
              ? `Too many requests: waiting ${formatWait(now.waiting)} before going on (${formatNumber(now.fetched)} of ${formatNumber(now.total)} read).`
              : `Reading interactions: ${formatNumber(now.fetched)} of ${formatNumber(now.total)}…`}
          </p>
        </>
      ) : (
        <>
          <button type="button" class="button" onClick={() => void start()}>
            Download CSV
          </button>
          <p class="export__status" role="status">
            {outcome.value ??
              (total > EXPORT_MAX_ROWS
                ? `The file holds the newest ${formatNumber(EXPORT_MAX_ROWS)} of the ${formatNumber(total)} listed.`
                : `The file holds every page of this list, not only this one.`)}
          </p>
        </>
      )}
      {failure.value ? <ErrorNotice error={failure.value} /> : null}
    </div>
  );
}
