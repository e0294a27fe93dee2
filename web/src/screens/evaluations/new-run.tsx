import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import type { operations } from '../../api/schema';
import { useAction } from '../../api/use-action';
import { AgentSelect, useAgentChoices } from '../../components/agent-select';
import { ErrorNotice } from '../../components/error-notice';
import { useApp } from '../../state/app-context';
import { EVALUATIONS_PATH } from './evaluations.state';
import {
  type LineProblem,
  QUESTION_LIMITS,
  type QuestionSet,
  questionsFromCsv,
  questionsFromText,
  setProblem,
} from './question-set';

type Source = 'paste' | 'csv' | 'interactions';
type StartBody = NonNullable<
  operations['startEvaluation']['requestBody']
>['content']['application/json'];
type Feedback = NonNullable<StartBody['from_interactions']>['feedback'];

/** A CSV larger than this is refused before it is read (500 questions with long answers fit well inside). */
const CSV_MAX_BYTES = 20 * 1024 * 1024;

/**
 * Starts a run: an agent, a name, and its questions — pasted (one a line),
 * from a CSV file read here, or the agent's rated interactions. The
 * set is checked against the API's limits before it is sent, each bad row
 * named by its line; then the run's page follows it.
 */
export function NewRun() {
  const { session } = useApp();
  const location = useLocation();
  const agents = useAgentChoices();
  const source = useSignal<Source>('paste');
  const pasted = useSignal<QuestionSet | null>(null);
  const file = useSignal<{ name: string; set: QuestionSet } | null>(null);
  const fileProblem = useSignal<string | null>(null);
  const refusal = useSignal<string | null>(null);

  const start = useAction(async (body: StartBody) => {
    const run = await unwrap(session.api.POST('/api/v1/evals', { body }));
    location.route(`${EVALUATIONS_PATH}/${run.id}`);
  });

  const onFile = async (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const chosen = input.files?.[0];
    file.value = null;
    fileProblem.value = null;
    if (!chosen) return;
    if (chosen.size > CSV_MAX_BYTES) {
      fileProblem.value = `${chosen.name} is larger than 20 MB: a run's 500 questions fit in far less. Check it is the right file.`;
      return;
    }
    try {
      file.value = { name: chosen.name, set: questionsFromCsv(await chosen.text()) };
    } catch {
      fileProblem.value = `${chosen.name} could not be read. Save it again as CSV (UTF-8) and choose it again.`;
    }
  };

  const current = (): QuestionSet | null =>
    source.value === 'paste'
      ? pasted.value
      : source.value === 'csv'
        ? (file.value?.set ?? null)
        : null;

  const onSubmit = (event: Event) => {
    event.preventDefault();
    refusal.value = null;
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const name = String(form.get('name') ?? '').trim();
    const common = { agent_id: String(form.get('agent_id')), ...(name ? { name } : {}) };
    if (source.value === 'interactions') {
      const since = String(form.get('since') ?? '');
      void start.run({
        ...common,
        from_interactions: {
          feedback: String(form.get('feedback')) as Feedback,
          limit: Number(form.get('limit')),
          ...(since ? { since } : {}),
        },
      });
    } else {
      const set = current();
      if (source.value === 'csv' && !file.value) {
        refusal.value = fileProblem.value ?? 'Choose a CSV file first.';
        return;
      }
      if (set && set.problems.length > 0) {
        refusal.value = `${set.problems.length === 1 ? 'One line needs' : `${set.problems.length} lines need`} fixing before the run can start (listed under the questions).`;
        return;
      }
      const problem = setProblem(set?.questions.length ?? 0);
      if (problem) {
        refusal.value = problem;
        return;
      }
      void start.run({ ...common, questions: [...(set?.questions ?? [])] });
    }
  };

  const set = current();
  return (
    <section class="screen" aria-labelledby="new-evaluation-heading">
      <p class="eval-back">
        <a href={EVALUATIONS_PATH}>All evaluations</a>
      </p>
      <h1 id="new-evaluation-heading">New evaluation</h1>
      <p class="eval-intro">
        A run holds 1 to {QUESTION_LIMITS.questionsMax} questions of at most{' '}
        {QUESTION_LIMITS.questionMax.toLocaleString('en-US')} characters each. Every question is
        asked as you, like a question in the playground: it is recorded as an interaction and counts
        toward the organization's requests and tokens for the day; the run stops if they run out.
      </p>
      <form class="form eval-form" aria-labelledby="new-evaluation-heading" onSubmit={onSubmit}>
        <AgentSelect id="eval-agent" agents={agents.data.value} value="" choose="Choose an agent" />
        <label for="eval-name">Name (optional)</label>
        <input id="eval-name" name="name" maxLength={QUESTION_LIMITS.nameMax} />
        <fieldset class="eval-source">
          <legend>Questions from</legend>
          {(
            [
              ['paste', 'Pasted questions'],
              ['csv', 'A CSV file'],
              ['interactions', 'Rated interactions'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} class="eval-choice">
              <input
                type="radio"
                name="source"
                value={value}
                checked={source.value === value}
                onChange={() => {
                  source.value = value;
                  refusal.value = null;
                }}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>

        {source.value === 'paste' ? (
          <>
            <label for="eval-questions">Questions</label>
            <p id="eval-questions-hint" class="form__hint">
              One question a line. To give the answer you expect, paste two columns from a
              spreadsheet: the question, then the expected answer.
            </p>
            <textarea
              id="eval-questions"
              name="questions"
              rows={8}
              aria-describedby="eval-questions-hint"
              onInput={(event) => {
                const text = (event.currentTarget as HTMLTextAreaElement).value;
                pasted.value = text.trim() ? questionsFromText(text) : null;
              }}
            />
          </>
        ) : null}

        {source.value === 'csv' ? (
          <>
            <label for="eval-csv">CSV file</label>
            <p id="eval-csv-hint" class="form__hint">
              A header row naming the columns: <code>question</code>, and if you have them{' '}
              <code>expected_answer</code> and <code>expected_sources</code> (several separated by{' '}
              <code>|</code>, each a document's address or, for files, its title). Other columns are
              ignored; without a header the columns are taken in that order.
            </p>
            <input
              id="eval-csv"
              type="file"
              accept=".csv,text/csv"
              aria-describedby="eval-csv-hint"
              onChange={(event) => void onFile(event)}
            />
            {fileProblem.value ? <p class="eval-problem">{fileProblem.value}</p> : null}
          </>
        ) : null}

        {source.value === 'interactions' ? (
          <>
            <p class="form__hint">
              The agent's newest rated interactions become the questions. One rated helpful expects
              its answer and the documents it cited again; one rated not helpful is asked again
              without an expectation, to see what the agent answers now.
            </p>
            <label for="eval-feedback">Rating</label>
            <select id="eval-feedback" name="feedback">
              <option value="positive">Rated helpful</option>
              <option value="negative">Rated not helpful</option>
              <option value="any">Any rating</option>
            </select>
            <label for="eval-since">Rated since (optional)</label>
            <input id="eval-since" name="since" type="date" />
            <label for="eval-limit">At most</label>
            <input
              id="eval-limit"
              name="limit"
              type="number"
              min={1}
              max={QUESTION_LIMITS.questionsMax}
              defaultValue="100"
              required
            />
          </>
        ) : null}

        {set ? (
          <SetSummary set={set} from={source.value === 'csv' ? file.value?.name : null} />
        ) : null}

        {refusal.value ? (
          <p class="eval-problem" role="alert">
            {refusal.value}
          </p>
        ) : null}
        {start.failure.value ? <ErrorNotice error={start.failure.value} /> : null}
        <div class="form__actions">
          <button type="submit" class="button button--primary" disabled={start.pending.value}>
            {start.pending.value ? 'Starting…' : 'Start evaluation'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** How many questions are ready and which lines are not, before anything is sent. */
function SetSummary({
  set,
  from,
}: {
  readonly set: QuestionSet;
  readonly from: string | null | undefined;
}) {
  const count = set.questions.length;
  const over = count > QUESTION_LIMITS.questionsMax;
  return (
    <div class="eval-summary" aria-live="polite">
      <p>
        {count} {count === 1 ? 'question' : 'questions'} ready{from ? ` from ${from}` : ''}
        {over ? `: more than the ${QUESTION_LIMITS.questionsMax} a run holds` : ''}
        {set.problems.length > 0
          ? `; ${set.problems.length} ${set.problems.length === 1 ? 'line' : 'lines'} to fix:`
          : '.'}
      </p>
      {set.problems.length > 0 ? <ProblemList problems={set.problems} /> : null}
    </div>
  );
}

/** The first 20 bad lines (a file of hundreds of bad rows is the wrong file). */
function ProblemList({ problems }: { readonly problems: readonly LineProblem[] }) {
  return (
    <ul class="eval-problems" aria-label="Lines to fix">
      {problems.slice(0, 20).map((problem) => (
        <li key={problem.line}>
          Line {problem.line}: {problem.message}
        </li>
      ))}
      {problems.length > 20 ? <li>and {problems.length - 20} more.</li> : null}
    </ul>
  );
}
