/**
 * The `citations` section of `npm run eval` (issue 3: "answer citation
 * precision on a small question set the project keeps in test/").
 *
 * The collection of test/eval/citation-questions.ts goes through the
 * product's own path: each document a `ParsedDocument` of one section,
 * cut by `chunkDocument`, embedded by `OfflineHashEmbedder`, indexed in an
 * `EmbeddedIndex`; each question retrieved by `retrieve` (the `hybrid`
 * default, `ANSWER_SOURCES` chunks) and answered by the offline
 * `ExtractiveAnswerer` from those chunks, numbered as the query path
 * numbers them. The citations are scored by test/eval/citation-metrics.ts.
 */
import { ExtractiveAnswerer } from '../../layers/core/adapters/ai/extractive-answerer';
import { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import type { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import { AGENT_DEFAULTS } from '../../layers/core/domain/agent';
import type { AnswerResult, AnswerSource } from '../../layers/core/ports/answerer.port';
import type { ParsedDocument } from '../../layers/core/ports/document.port';
import { ANSWER_SOURCES } from '../../layers/core/use-cases/query/answer-query';
import { retrieve } from '../../layers/core/use-cases/retrieval/retrieve';
import type { Machine } from '../bench/machine';
import { table } from '../support/markdown-table';
import { type AnsweredQuestion, type CitationMetrics, citationMetrics } from './citation-metrics';
import {
  CITATION_DOCUMENTS,
  CITATION_QUESTIONS,
  type CitationDocument,
  type CitationQuestion,
} from './citation-questions';
import { buildIndex, chunkDocuments, embedChunks } from './corpus-index';

const ORG = 'org_eval_citations';
const DATA_SOURCE = 'ds_citations';

function toParsedDocument(document: CitationDocument): ParsedDocument {
  return {
    title: document.title,
    url: null,
    sections: [{ headingPath: [], paragraphs: [...document.paragraphs] }],
  };
}

/** The collection chunked, embedded and indexed as the sync worker would do it. */
export async function indexCollection(
  documents: readonly CitationDocument[],
  embedder: OfflineHashEmbedder,
): Promise<{ index: EmbeddedIndex; chunks: number }> {
  const chunks = embedChunks(
    chunkDocuments(
      documents.map((document) => ({ id: document.id, parsed: toParsedDocument(document) })),
      { orgId: ORG, dataSourceId: DATA_SOURCE },
    ),
    embedder,
  );
  return { index: await buildIndex(chunks), chunks: chunks.length };
}

/** One question through retrieval and the offline answerer, as the query path runs them. */
export async function answerQuestion(
  index: EmbeddedIndex,
  embedder: OfflineHashEmbedder,
  question: CitationQuestion,
): Promise<AnsweredQuestion> {
  const { chunks } = await retrieve(
    { retrieval: index, embedder },
    {
      orgId: ORG,
      dataSourceIds: [DATA_SOURCE],
      query: question.question,
      strategy: 'hybrid',
      topK: ANSWER_SOURCES,
    },
  );
  const offered: AnswerSource[] = chunks.map((found, i) => ({
    number: i + 1,
    chunk_id: found.chunk.chunk_id,
    document_title: found.chunk.document_title,
    document_url: found.chunk.document_url,
    text: found.chunk.text,
    score: found.similarity,
  }));
  let result: AnswerResult | undefined;
  for await (const event of new ExtractiveAnswerer().answer({
    model: AGENT_DEFAULTS.model,
    systemPrompt: null,
    question: question.question,
    history: [],
    sources: offered,
    temperature: AGENT_DEFAULTS.temperature,
    maxTokens: AGENT_DEFAULTS.maxTokens,
  })) {
    if (event.type === 'done') result = event.result;
  }
  if (!result) throw new Error(`no answer to ${question.id}`);
  return {
    questionId: question.id,
    answer: result.text,
    sources: chunks.map((found, i) => ({ number: i + 1, documentId: found.chunk.document_id })),
    supportedBy: question.supportedBy,
  };
}

export interface CitationEvalResult {
  readonly documents: number;
  readonly chunks: number;
  readonly metrics: CitationMetrics;
  readonly answers: readonly AnsweredQuestion[];
}

export async function evaluateCitations(): Promise<CitationEvalResult> {
  const embedder = new OfflineHashEmbedder();
  const { index, chunks } = await indexCollection(CITATION_DOCUMENTS, embedder);
  const answers: AnsweredQuestion[] = [];
  for (const question of CITATION_QUESTIONS) {
    answers.push(await answerQuestion(index, embedder, question));
  }
  return {
    documents: CITATION_DOCUMENTS.length,
    chunks,
    metrics: citationMetrics(answers),
    answers,
  };
}

const percent = (value: number) => (Number.isNaN(value) ? '—' : `${(value * 100).toFixed(1)} %`);

export function renderCitations(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly result: CitationEvalResult;
}): string {
  const { metrics, answers } = report.result;
  const questions = new Map(CITATION_QUESTIONS.map((question) => [question.id, question]));
  const summary = table(
    ['Measure', 'Value', 'Of'],
    [
      [
        'citation precision (citations pointing to a supporting document)',
        percent(metrics.precision),
        `${metrics.supportedCitations} of ${metrics.citations} citations`,
      ],
      [
        'citation precision, mean per answer that cites',
        percent(metrics.macroPrecision),
        `${metrics.perQuestion.filter((s, i) => s.citations > 0 && (answers[i]?.supportedBy.length ?? 0) > 0).length} answers`,
      ],
      [
        'answers citing at least one supporting document',
        percent(metrics.supportedAnswerRate),
        `${metrics.answerable} answerable questions`,
      ],
      [
        'answerable questions answered "couldn\'t find"',
        percent(metrics.answerableNoAnswerRate),
        `${metrics.answerable} answerable questions`,
      ],
      [
        'honest "couldn\'t find" to unanswerable questions',
        percent(metrics.honestNoAnswerRate),
        `${metrics.unanswerable} unanswerable questions`,
      ],
    ],
  );
  const rows = metrics.perQuestion.map((score, i) => {
    const question = questions.get(score.questionId);
    const supportedBy = answers[i]?.supportedBy ?? [];
    return [
      score.questionId,
      question?.question ?? '',
      supportedBy.length > 0 ? supportedBy.join(', ') : '(none)',
      score.noAnswer ? "couldn't find" : `${score.supportedCitations} of ${score.citations}`,
    ];
  });
  return `## Answer citation precision

Written by \`npm run eval\` (test/eval/citation-eval.ts) on ${report.date}; this
part took ${report.durationSeconds.toFixed(1)} s. Rerun it rather than editing these figures.

**Machine**: ${report.machine.cpu}, ${report.machine.cores} cores, Node.js ${report.machine.node}.

**What runs**: the product's own path on a small collection the project
keeps in test/eval/citation-questions.ts: ${report.result.documents} made-up help-center
documents about a fictional product (shipping, returns, warranty, prices,
accounts, the app, cleaning, safety, payments, troubleshooting), written
for this eval, and ${metrics.answerable + metrics.unanswerable} questions, each with the documents that
support its answer (${metrics.unanswerable} have none: nothing in the collection answers
them). The documents are cut by \`chunkDocument\` (300 tokens, 50 of
overlap) into ${report.result.chunks} chunks, embedded by \`OfflineHashEmbedder\` and indexed
in an \`EmbeddedIndex\`; each question is retrieved by \`retrieve\` (\`hybrid\`,
the ${ANSWER_SOURCES} chunks the query path offers) and answered by the offline
\`ExtractiveAnswerer\` (\`offline-extractive\`), sources numbered as the
query path numbers them.

${summary}

**How the figures are computed** (test/eval/citation-metrics.ts, checked
on hand-made answers by test/eval/citation-metrics.test.ts): a citation is
one distinct offered source number \`[n]\` in an answer; it is supported
when source \`n\` is a chunk of a document the question lists. Precision
is over the answers to answerable questions (supported citations over all
citations); an honest non-answer is the answerers' "couldn't find" text
(\`NO_ANSWER_TEXT\`). With about ${Math.round(metrics.citations)} citations, one citation moves
precision by several points: these figures show whether citations point at
the right documents, not small differences between versions.

### Per question

${table(['Question', 'Text', 'Supported by', 'Supported citations'], rows)}`;
}
