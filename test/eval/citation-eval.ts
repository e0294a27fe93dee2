/**
 * The project's question set in process (issue 3), for the citation
 * tuning grid (test/eval/citation-tuning.ts); `npm run eval` measures the
 * same set through the HTTP API (test/eval/citation-report.ts).
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
import type { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import type { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import { AGENT_DEFAULTS } from '../../layers/core/domain/agent';
import type { AnswerResult, AnswerSource } from '../../layers/core/ports/answerer.port';
import type { ParsedDocument } from '../../layers/core/ports/document.port';
import { ANSWER_SOURCES } from '../../layers/core/use-cases/query/answer-query';
import { retrieve } from '../../layers/core/use-cases/retrieval/retrieve';
import type { AnsweredQuestion } from './citation-metrics';
import type { CitationDocument, CitationQuestion } from './citation-questions';
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
