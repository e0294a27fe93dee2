/**
 * `npm run eval -- --tune-citations` (issue 10, P175): the offline
 * answerer's support gate — `minCoverage` × `relativeCutoff` — on the first
 * 150 SciFact claims only, scored by citation precision and recall
 * (test/eval/citation-scoring.ts); the pick is the best F1. The same grid on
 * the project's question set is shown beside it as a check, not a criterion.
 *
 * In process, for speed (the grid answers 150 claims 9 times): the same
 * chunks, index, `retrieve` and answerer the query path runs, and the
 * answer renumbered as the query path renumbers it (P174).
 */
import {
  ExtractiveAnswerer,
  MIN_COVERAGE,
  RELATIVE_CUTOFF,
} from '../../layers/core/adapters/ai/extractive-answerer';
import type { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import type { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import { renumberCitations } from '../../layers/core/domain/citations';
import type { AnswerResult } from '../../layers/core/ports/answerer.port';
import { ANSWER_SOURCES } from '../../layers/core/use-cases/query/answer-query';
import { retrieve } from '../../layers/core/use-cases/retrieval/retrieve';
import { table } from '../support/markdown-table';
import { indexCollection } from './citation-eval';
import type { EvalQuestion } from './citation-http';
import { CITATION_DOCUMENTS, CITATION_QUESTIONS } from './citation-questions';
import { type CitationScores, type CitingAnswer, citationScores } from './citation-scoring';
import { buildIndex, chunkCorpus, EVAL_ORG, embedChunks } from './corpus-index';
import type { Scifact } from './scifact';

const COVERAGES = [0.1, 0.2, 0.3] as const;
const CUTOFFS = [0.5, 0.7, 0.85] as const;

async function answerAll(
  index: EmbeddedIndex,
  embedder: OfflineHashEmbedder,
  orgId: string,
  questions: readonly EvalQuestion[],
  answerer: ExtractiveAnswerer,
): Promise<CitationScores> {
  const answers: CitingAnswer[] = [];
  for (const question of questions) {
    const { chunks } = await retrieve(
      { retrieval: index, embedder },
      { orgId, query: question.text, strategy: 'hybrid', topK: ANSWER_SOURCES },
    );
    let result: AnswerResult | undefined;
    for await (const event of answerer.answer({
      model: 'offline-extractive',
      systemPrompt: null,
      question: question.text,
      history: [],
      sources: chunks.map((found, i) => ({
        number: i + 1,
        chunk_id: found.chunk.chunk_id,
        document_title: found.chunk.document_title,
        document_url: null,
        text: found.chunk.text,
        score: found.similarity,
      })),
      temperature: 0,
      maxTokens: 1024,
    })) {
      if (event.type === 'done') result = event.result;
    }
    const cited = result?.cited ?? [];
    answers.push({
      questionId: question.id,
      answer: renumberCitations(result?.text ?? '', cited),
      sourceDocuments: cited.map((n) => chunks[n - 1]?.chunk.document_id ?? ''),
      relevant: question.relevant,
    });
  }
  return citationScores(answers);
}

const f1 = (scores: CitationScores) =>
  (2 * scores.precision * scores.recall) / (scores.precision + scores.recall);

export async function tuneCitations(
  data: Scifact,
  embedder: OfflineHashEmbedder,
  log: (line: string) => void,
): Promise<string> {
  const started = performance.now();
  const index = await buildIndex(embedChunks(chunkCorpus(data.documents), embedder));
  const training = data.queries.slice(0, 150).map((query) => ({
    id: query.id,
    text: query.text,
    relevant: [...(data.qrels.get(query.id)?.keys() ?? [])],
  }));
  const project = await indexCollection(CITATION_DOCUMENTS, embedder);
  const projectQuestions = CITATION_QUESTIONS.map((question) => ({
    id: question.id,
    text: question.question,
    relevant: question.supportedBy,
  }));
  const rows: { cutoff: number; coverage: number; scifact: CitationScores; own: CitationScores }[] =
    [];
  for (const relativeCutoff of CUTOFFS) {
    for (const minCoverage of COVERAGES) {
      const answerer = new ExtractiveAnswerer({ minCoverage, relativeCutoff });
      const scifact = await answerAll(index, embedder, EVAL_ORG, training, answerer);
      const own = await answerAll(
        project.index,
        embedder,
        'org_eval_citations',
        projectQuestions,
        answerer,
      );
      log(
        `cutoff ${relativeCutoff} coverage ${minCoverage}: SciFact P ${scifact.precision.toFixed(3)} R ${scifact.recall.toFixed(3)} F1 ${f1(scifact).toFixed(3)}`,
      );
      rows.push({ cutoff: relativeCutoff, coverage: minCoverage, scifact, own });
    }
  }
  const best = rows.reduce((a, b) => (f1(b.scifact) > f1(a.scifact) ? b : a));
  const inCode = (row: (typeof rows)[number]) =>
    row.cutoff === RELATIVE_CUTOFF && row.coverage === MIN_COVERAGE;
  return `## Tuning the answerer's citations (first 150 SciFact claims only)

Written by \`npm run eval -- --tune-citations\` (test/eval/citation-tuning.ts); the
run took ${((performance.now() - started) / 1000).toFixed(0)} s. The offline answerer cites a source when one of its
sentences covers at least \`minCoverage\` of the question's idf-weighted terms and
scores at least \`relativeCutoff\` of the best sentence (P175). The pick is the best
citation F1 on the first 150 SciFact claims; the project set is shown as a check.
In process (the query path's chunking, index, \`retrieve\` and answerer).
${inCode(best) ? 'The code uses the pick.' : `**The code (${RELATIVE_CUTOFF}, ${MIN_COVERAGE}) differs from the pick.**`}

${table(
  [
    'relativeCutoff',
    'minCoverage',
    'SciFact P',
    'SciFact R',
    'SciFact F1',
    'project P',
    'project R',
    'project honest "couldn\'t find"',
    '',
  ],
  rows.map((row) => [
    String(row.cutoff),
    String(row.coverage),
    row.scifact.precision.toFixed(3),
    row.scifact.recall.toFixed(3),
    f1(row.scifact).toFixed(3),
    row.own.precision.toFixed(3),
    row.own.recall.toFixed(3),
    `${row.own.honestNoAnswer} of ${row.own.unanswerable}`,
    row === best ? 'chosen' : '',
  ]),
)}`;
}
