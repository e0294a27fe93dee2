/**
 * The answers eval (issue 28 item 5) through the public HTTP API, as a user
 * runs it: the local runtime as `npm start` runs it (in memory, background
 * workers on their usual interval), a `file` data source, every document of
 * test/eval/answer-documents.ts uploaded through the presigned upload flow
 * (one batch of tickets, then a form POST per file), polled over HTTP until
 * every file is indexed, an agent with the defaults on that source, and each
 * question of test/eval/answer-questions.ts sent twice:
 *
 * - `POST /api/v1/semantic-search` (the agent's source, `top_k` 5): where the
 *   expected document ranks among the documents of the five best chunks;
 * - `POST /api/v1/query`: the answer, scored by test/eval/answer-scoring.ts,
 *   its latency measured by the client.
 *
 * A cited source names its document by `document_id` when the response
 * carries it; otherwise by its `chunk_id`, looked up among the chunks the
 * searches returned, and failing that by searching the source's own text.
 */
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { sendUpload, type UploadTicket } from '../support/uploads';
import { ANSWER_DOCUMENTS, type LoadedDocument, loadAnswerDocuments } from './answer-documents';
import { ANSWER_QUESTIONS } from './answer-questions';
import {
  isAbstention,
  matchedPhrase,
  phrasesNotInDocuments,
  type ScoredAnswer,
} from './answer-scoring';
import { call, executeKeys } from './http-collection';

/** Chunks the search asks for: the answer is composed from as many. */
export const SEARCH_TOP_K = 5;

/** Longest wait for the uploads to be indexed before the eval gives up. */
const INDEXING_TIMEOUT_MS = 300_000;

export interface AnswersRun {
  readonly answers: readonly ScoredAnswer[];
  readonly documents: number;
  readonly distractors: number;
  readonly missingDocuments: readonly { readonly name: string; readonly reason: string }[];
  /** Questions not asked because their document is missing here. */
  readonly skippedQuestions: readonly string[];
  readonly chunksIndexed: number;
  readonly bytesUploaded: number;
  readonly indexSeconds: number;
  readonly querySeconds: number;
}

interface IndexedFiles {
  readonly sourceId: string;
  /** document_id → uploaded file name, and back. */
  readonly nameOf: ReadonlyMap<string, string>;
  readonly idOf: ReadonlyMap<string, string>;
  readonly chunksIndexed: number;
}

function contentTypeOf(name: string): string {
  return name.endsWith('.md') ? 'text/markdown' : 'text/plain';
}

/** Uploads every document as a file and waits, over HTTP, until all are indexed. */
async function uploadAll(
  service: TestService,
  key: string,
  documents: readonly LoadedDocument[],
  log: (line: string) => void,
): Promise<IndexedFiles> {
  const source = await call(service, key, '/api/v1/data-sources', 'POST', {
    type: 'file',
    name: 'Debian documentation',
  });
  const filesPath = `/api/v1/data-sources/${source.id}/files`;
  const bodies = documents.map((document) => Buffer.from(document.text, 'utf8'));
  const presigned = await call(service, key, filesPath, 'POST', {
    files: documents.map((document, index) => ({
      filename: document.spec.name,
      content_type: contentTypeOf(document.spec.name),
      size_bytes: bodies[index]?.length,
    })),
  });
  const tickets = presigned.tickets as UploadTicket[];
  for (const [index, ticket] of tickets.entries()) {
    const name = documents[index]?.spec.name ?? '';
    const sent = await sendUpload(ticket, bodies[index] ?? Buffer.alloc(0), { filename: name });
    if (sent.status !== 204) {
      throw new Error(`uploading ${name}: ${sent.status} ${JSON.stringify(sent.body)}`);
    }
  }
  const deadline = Date.now() + INDEXING_TIMEOUT_MS;
  for (;;) {
    const listed = (await call(service, key, filesPath, 'GET')).files as Array<Record<string, any>>;
    const failed = listed.filter((file) => file.status === 'failed');
    if (failed.length > 0) {
      throw new Error(
        `not indexed: ${failed.map((file) => `${file.filename} (${file.error})`).join(', ')}`,
      );
    }
    const indexed = listed.filter((file) => file.status === 'indexed');
    if (indexed.length === documents.length) {
      const chunksIndexed = indexed.reduce((sum, file) => sum + Number(file.chunks_indexed), 0);
      log(`${indexed.length} files indexed, ${chunksIndexed} chunks`);
      return {
        sourceId: source.id,
        nameOf: new Map(indexed.map((file) => [file.id, file.filename])),
        idOf: new Map(indexed.map((file) => [file.filename, file.id])),
        chunksIndexed,
      };
    }
    if (Date.now() > deadline) {
      throw new Error(`${indexed.length} of ${documents.length} files indexed after the timeout`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Document ids in the order of their best chunk. */
function documentRanking(chunks: ReadonlyArray<Record<string, any>>): string[] {
  const ranking: string[] = [];
  for (const chunk of chunks) {
    if (!ranking.includes(chunk.document_id)) ranking.push(chunk.document_id);
  }
  return ranking;
}

/** Uploads, asks and scores (see the module comment). */
export async function runAnswersEval(log: (line: string) => void = () => {}): Promise<AnswersRun> {
  const { documents, missing } = loadAnswerDocuments(ANSWER_DOCUMENTS);
  for (const absent of missing) log(`missing document, its questions skipped: ${absent.reason}`);
  const present = new Set(documents.map((document) => document.spec.name));
  const problems = phrasesNotInDocuments(ANSWER_QUESTIONS, documents);
  if (problems.length > 0) {
    throw new Error(`key phrases missing from their documents:\n${problems.join('\n')}`);
  }
  const questions = ANSWER_QUESTIONS.filter(
    (question) => question.document === null || present.has(question.document),
  );
  const skippedQuestions = ANSWER_QUESTIONS.filter(
    (question) => question.document !== null && !present.has(question.document),
  ).map((question) => question.id);

  // The worker interval `npm start` uses: uploads are ingested in the background, not stepped.
  const service = await startTestService({ env: { SVC_WORKER_INTERVAL_MS: '200' } });
  try {
    const tenant = await createTenant(service, { name: 'answers eval' });
    const indexStarted = performance.now();
    const files = await uploadAll(service, tenant.key, documents, log);
    const indexSeconds = (performance.now() - indexStarted) / 1000;
    const agent = await call(service, tenant.key, '/api/v1/agents', 'POST', {
      name: 'Answers eval agent',
      data_source_ids: [files.sourceId],
    });
    const keys = await executeKeys(service, tenant, questions.length * 4);
    let request = 0;
    const nextKey = () => keys[request++ % keys.length] ?? tenant.key;
    const search = (query: string, topK: number) =>
      call(service, nextKey(), '/api/v1/semantic-search', 'POST', {
        query,
        org_id: tenant.orgId,
        data_source_ids: [files.sourceId],
        top_k: topK,
      });

    const documentOfChunk = new Map<string, string>();
    const remember = (chunks: ReadonlyArray<Record<string, any>>) => {
      for (const chunk of chunks) documentOfChunk.set(chunk.chunk_id, chunk.document_id);
    };
    /** The document a cited source comes from, by the first means that names it. */
    const documentOfSource = async (source: Record<string, any>): Promise<string | undefined> => {
      if (typeof source.document_id === 'string') return source.document_id;
      const known = documentOfChunk.get(source.chunk_id);
      if (known !== undefined) return known;
      const found = await search(String(source.chunk_text).slice(0, 1000), 20);
      remember(found.chunks);
      return documentOfChunk.get(source.chunk_id);
    };

    const answers: ScoredAnswer[] = [];
    const queryStarted = performance.now();
    for (const question of questions) {
      const expectedId = question.document === null ? undefined : files.idOf.get(question.document);
      const searched = await search(question.text, SEARCH_TOP_K);
      remember(searched.chunks);
      const rank =
        expectedId === undefined ? -1 : documentRanking(searched.chunks).indexOf(expectedId);

      const sent = performance.now();
      const result = await call(service, nextKey(), '/api/v1/query', 'POST', {
        agent_id: agent.id,
        query: question.text,
      });
      const latency = performance.now() - sent;
      const response = String(result.response);
      const citedIds: string[] = [];
      for (const source of result.sources as Array<Record<string, any>>) {
        const id = (await documentOfSource(source)) ?? `unknown chunk ${source.chunk_id}`;
        if (!citedIds.includes(id)) citedIds.push(id);
      }
      const inAny = (texts: readonly unknown[]) =>
        question.phrases.length > 0 &&
        matchedPhrase(texts.map(String).join('\n\n'), question.phrases) !== undefined;
      const matched =
        question.phrases.length === 0 ? undefined : matchedPhrase(response, question.phrases);
      answers.push({
        id: question.id,
        question: question.text,
        expected_document: question.document,
        category: question.category,
        split: question.split,
        phrases: question.phrases,
        right: matched !== undefined,
        matched_phrase: matched ?? null,
        cited: expectedId !== undefined && citedIds.includes(expectedId),
        abstained: isAbstention(response),
        response,
        cited_documents: citedIds.map((id) => files.nameOf.get(id) ?? id),
        phrase_in_sources: inAny(
          (result.sources as Array<Record<string, any>>).map((source) => source.chunk_text),
        ),
        phrase_in_search: inAny(searched.chunks.map((chunk: Record<string, any>) => chunk.text)),
        latency_ms: Math.round(latency),
        hit_rank: rank >= 0 ? rank + 1 : null,
      });
    }
    const querySeconds = (performance.now() - queryStarted) / 1000;
    log(`${questions.length} questions searched and asked in ${querySeconds.toFixed(1)} s`);
    return {
      answers,
      documents: documents.length,
      distractors: documents.filter((document) => document.spec.split === 'distractor').length,
      missingDocuments: missing,
      skippedQuestions,
      chunksIndexed: files.chunksIndexed,
      bytesUploaded: documents.reduce((sum, document) => sum + Buffer.byteLength(document.text), 0),
      indexSeconds,
      querySeconds,
    };
  } finally {
    await service.end();
  }
}
