/**
 * The `answers` section of docs/quality.md: the answers eval's figures by
 * split and by category (test/eval/answers-http.ts), and the per-question
 * JSON the lead iterates on.
 */
import { writeFileSync } from 'node:fs';
import type { Machine } from '../bench/machine';
import { ANSWER_CATEGORIES } from './answer-questions';
import { type AnswerSummary, type ScoredAnswer, summarize } from './answer-scoring';
import { type AnswersRun, SEARCH_TOP_K } from './answers-http';

export interface AnswersReportInput {
  readonly date: string;
  readonly commit: string;
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly run: AnswersRun;
}

const share = (count: number, of: number): string =>
  of === 0 ? '—' : `${count} (${Math.round((100 * count) / of)} %)`;

function row(label: string, summary: AnswerSummary): string {
  const { asked } = summary;
  return `| ${label} | ${asked} | ${share(summary.right, asked)} | ${share(summary.cited, asked)} | ${share(summary.abstained, asked)} | ${share(summary.hit1, asked)} | ${share(summary.hit5, asked)} | ${Math.round(summary.p50)} | ${Math.round(summary.p95)} |`;
}

const HEADER = [
  '| Questions | Asked | Right | Cited | Abstained | Search hit@1 | Search hit@5 | p50 ms | p95 ms |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];

export const answerable = (answers: readonly ScoredAnswer[]) =>
  answers.filter((answer) => answer.expected_document !== null);
export const unanswerable = (answers: readonly ScoredAnswer[]) =>
  answers.filter((answer) => answer.expected_document === null);

/**
 * The figures by split: tune, holdout, holdout2, the first set (tune and
 * holdout, the 117 questions earlier rounds were compared on) and all
 * answerable questions.
 */
export function splitSummaries(answers: readonly ScoredAnswer[]) {
  const asked = answerable(answers);
  const of = (...splits: string[]) => asked.filter((answer) => splits.includes(answer.split));
  return {
    tune: summarize(of('tune')),
    holdout: summarize(of('holdout')),
    holdout2: summarize(of('holdout2')),
    tuneAndHoldout: summarize(of('tune', 'holdout')),
    all: summarize(asked),
  };
}

/**
 * Each wrong answer in the first class it fits: said "couldn't find"; had a
 * key phrase in a source it cites (the answer step dropped it); had one only
 * in the search's best chunks (not chosen); or retrieval brought none.
 */
export const FAILURE_CLASSES = [
  ['abstained', (answer: ScoredAnswer) => answer.abstained],
  [
    'a cited source holds a key phrase, the answer leaves it out',
    (answer: ScoredAnswer) => answer.phrase_in_sources,
  ],
  [
    'a key phrase is in the top 5 chunks, but not in what the answer cites',
    (answer: ScoredAnswer) => answer.phrase_in_search,
  ],
  ['no key phrase in the top 5 chunks', () => true],
] as const;

/** How many documents the answerable questions (of one split, when given) are about. */
function documentsAsked(answers: readonly ScoredAnswer[], split?: string): number {
  const asked = answerable(answers).filter(
    (answer) => split === undefined || answer.split === split,
  );
  return new Set(asked.map((answer) => answer.expected_document)).size;
}

export function failureClassOf(answer: ScoredAnswer): string {
  return FAILURE_CLASSES.find(([, test]) => test(answer))?.[0] ?? '';
}

function failureRows(wrong: readonly ScoredAnswer[]): string {
  return FAILURE_CLASSES.map(([label]) => {
    const count = (split: string) =>
      wrong.filter((answer) => answer.split === split && failureClassOf(answer) === label).length;
    return `| ${label} | ${count('tune')} | ${count('holdout')} | ${count('holdout2')} |`;
  }).join('\n');
}

export function renderAnswersReport(input: AnswersReportInput): string {
  const { run } = input;
  const splits = splitSummaries(run.answers);
  const none = unanswerable(run.answers);
  const honest = none.filter((answer) => answer.abstained).length;
  const noneLatency = summarize(none);
  const categories = ANSWER_CATEGORIES.map((category) => ({
    category,
    summary: summarize(answerable(run.answers).filter((answer) => answer.category === category)),
  })).filter(({ summary }) => summary.asked > 0);
  const wrong = answerable(run.answers).filter((answer) => !answer.right);
  const missing =
    run.missingDocuments.length === 0
      ? 'Every document was found on this machine; no question was skipped.'
      : `Missing on this machine, so ${run.skippedQuestions.length} questions were skipped: ${run.missingDocuments.map((absent) => absent.reason).join('; ')}.`;
  return `## Answers on Debian documentation (through the HTTP API)

Written by \`npm run eval -- --answers\` (test/eval/answers-http.ts) on ${input.date}
at commit ${input.commit}; this part took ${Math.round(input.durationSeconds)} s. Rerun it rather than
editing these figures; \`--answers-json <path>\` also writes every question's
answer, score and latency.

**Machine**: ${input.machine.cpu}, ${input.machine.cores} cores, ${input.machine.memoryGiB.toFixed(1)} GiB RAM,
${input.machine.os}, Node.js ${input.machine.node}.

**What runs**: the local runtime as \`npm start\` runs it (in memory, background
workers every 200 ms), driven only over HTTP. ${run.documents} documents that ship
with Debian packages on this machine (test/eval/answer-documents.ts: READMEs and
manuals in Markdown from /usr/share/doc, plain-text READMEs, man pages of curl,
git, tar, ssh, make, gzip and python3 rendered by \`man\` and re-marked as Markdown,
and pages of Node.js's API reference from /usr/share/doc/nodejs/api;
${run.distractors} of them distractors no question is about), ${(run.bytesUploaded / 1024).toFixed(0)} KiB in all, read at
eval time and never copied here, are uploaded as files to a \`file\` data source
through the presigned upload flow and indexed in ${run.indexSeconds.toFixed(1)} s (${run.chunksIndexed} chunks).
An agent with the defaults (\`hybrid\`, \`offline-extractive\`) answers each question
of test/eval/answer-questions.ts with \`POST /api/v1/query\`; the same question goes
to \`POST /api/v1/semantic-search\` (the agent's source, \`top_k\` ${SEARCH_TOP_K}) for where the
answering document ranks. ${missing}

The questions are written the way people ask ("whats the curl flag to follow
redirects", "does tar keep permissions by default?", "how do i read a file line
by line in node"): ${answerable(run.answers).length} answerable ones over
${documentsAsked(run.answers)} documents, split by document into \`tune\` (may be looked at while
improving the answerer; ${documentsAsked(run.answers, 'tune')} documents), \`holdout\` (may not; ${documentsAsked(run.answers, 'holdout')} documents) and
\`holdout2\` (${documentsAsked(run.answers, 'holdout2')} pages of Node.js's API reference, library documentation
like the READMEs of the issue's own held-out set; its questions were written from
the documents alone, never run through the answerer to choose or reword them, and
nobody tunes on it), and ${none.length} that nothing in the set answers.

| Questions | Asked | Right | Cited | Abstained | Search hit@1 | Search hit@5 | p50 ms | p95 ms |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${row('tune', splits.tune)}
${row('holdout', splits.holdout)}
${row('holdout2', splits.holdout2)}
${row('tune + holdout', splits.tuneAndHoldout)}
${row('all answerable', splits.all)}

Nothing in the set answers ${none.length} questions: ${honest} of them got the honest
"couldn't find" (p50 ${Math.round(noneLatency.p50)} ms).

Where the ${wrong.length} answers that are not right went wrong (by split):

| Wrong answer | tune | holdout | holdout2 |
| --- | ---: | ---: | ---: |
${failureRows(wrong)}

By what is asked (all answerable questions):

${HEADER.join('\n')}
${categories.map(({ category, summary }) => row(category, summary)).join('\n')}

**How the figures are computed** (test/eval/answer-scoring.ts, checked by
test/eval/answer-scoring.test.ts): *right*: the answer contains one of the
question's key phrases (the option, command, identifier, number or sentence any
right answer must say; each is checked to occur in its document before the run),
compared after the \`[n]\` markers, Markdown code and bold marks and backslash
escapes are removed, case folded and whitespace collapsed. *Cited*: the answering
document is among the documents of the answer's sources (a source's
\`document_id\` when the response carries one, else its \`chunk_id\` found among
the chunks semantic search returned). *Abstained*: the answer is the service's
"couldn't find" or "no indexed sources" text. *Search hit@k*: the answering
document is among the first k documents of the ${SEARCH_TOP_K} best chunks. *Latency*:
milliseconds from sending \`POST /api/v1/query\` to its response, measured by the
client, nearest-rank percentiles.`;
}

/** The per-question JSON: every answer with its score, for iterating on the answerer. */
export function writeAnswersJson(path: string, input: AnswersReportInput): void {
  const { run } = input;
  writeFileSync(
    path,
    `${JSON.stringify(
      {
        date: input.date,
        commit: input.commit,
        summary: {
          ...splitSummaries(run.answers),
          unanswerable: summarize(unanswerable(run.answers)),
        },
        missing_documents: run.missingDocuments,
        skipped_questions: run.skippedQuestions,
        answers: run.answers,
      },
      null,
      2,
    )}\n`,
  );
}
