/**
 * Answer citations measured through the public HTTP API (issue 10, item 4),
 * as a user would: the real local runtime (`startTestService`, dynalite,
 * gateway, workers), each collection served as a loopback website and
 * crawled by a website data source, an agent with the defaults (`hybrid`,
 * `offline-extractive`), and every question asked with `POST /api/v1/query`.
 * What an answer cites is read from its `[n]` markers and the `sources` it
 * lists (`[n]` is `sources[n - 1]`), and each source's `document_url` names
 * the document; the chunks and quotes are also compared with the documents
 * (verbatim, after domain/retrieval/verbatim.ts's normalization).
 *
 * Keys are issued as the admin tooling issues them (D11); queries rotate
 * over a few Execute keys so the scope limit (100/min, burst 120 per key)
 * is not what the eval measures.
 */
import { quotesOf } from '../../layers/core/domain/citations';
import { isVerbatimQuote, normalizeWhitespace } from '../../layers/core/domain/retrieval/verbatim';
import { startTestService } from '../support/local-service';
import { type CitationScores, type CitingAnswer, citationScores } from './citation-scoring';
import {
  type CrawledCollection,
  call,
  crawlCollection,
  type EvalDocument,
  executeKeys,
} from './http-collection';

export type { EvalDocument } from './http-collection';

export interface EvalQuestion {
  readonly id: string;
  readonly text: string;
  /** Documents that support an answer; empty when nothing does. */
  readonly relevant: readonly string[];
}

export interface HttpCitationResult {
  readonly scores: CitationScores;
  readonly answers: readonly CitingAnswer[];
  readonly chunksIndexed: number;
  /** Listed sources whose `chunk_text` is not a substring of its document (normalized). */
  readonly nonVerbatimChunks: number;
  readonly sourcesListed: number;
  /** Spans between markers that are not a substring of a source the answer lists (normalized). */
  readonly nonVerbatimQuotes: number;
  readonly quotes: number;
  readonly syncSeconds: number;
  readonly querySeconds: number;
}

/**
 * Crawls `documents` from a loopback site into a new organization's data
 * source, asks every question of an agent over it, and scores the answers.
 */
export async function measureCitationsOverHttp(
  documents: readonly EvalDocument[],
  questions: readonly EvalQuestion[],
  log: (line: string) => void = () => {},
): Promise<HttpCitationResult> {
  const service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } });
  let crawled: CrawledCollection | undefined;
  try {
    crawled = await crawlCollection(service, documents, 'citation eval', log);
    const { tenant, syncSeconds } = crawled;
    const admin = tenant.key;
    const agent = await call(service, admin, '/api/v1/agents', 'POST', {
      name: 'Citation eval agent',
      data_source_ids: [crawled.dataSourceId],
    });
    const keys = await executeKeys(service, tenant, questions.length);

    const byPath = crawled.byUrl;
    const documentText = new Map(
      documents.map((document) => [
        document.id,
        normalizeWhitespace(document.paragraphs.join('\n\n')),
      ]),
    );
    const answers: CitingAnswer[] = [];
    let nonVerbatimChunks = 0;
    let sourcesListed = 0;
    let nonVerbatimQuotes = 0;
    let quotes = 0;
    const queryStarted = performance.now();
    for (const [index, question] of questions.entries()) {
      const key = keys[index % keys.length] ?? admin;
      const result = await call(service, key, '/api/v1/query', 'POST', {
        agent_id: agent.id,
        query: question.text,
      });
      const sources = result.sources as Array<Record<string, any>>;
      const sourceDocuments = sources.map(
        (listed) => byPath.get(listed.document_url)?.id ?? `unknown:${listed.document_url}`,
      );
      sources.forEach((listed, i) => {
        sourcesListed += 1;
        const text = documentText.get(sourceDocuments[i] ?? '') ?? '';
        if (!text.includes(normalizeWhitespace(listed.chunk_text))) nonVerbatimChunks += 1;
      });
      for (const quote of sources.length === 0 ? [] : quotesOf(result.response as string)) {
        quotes += 1;
        const cited = quote.sources.map((number) => sources[number - 1]);
        const verbatim = cited.some(
          (listed) =>
            listed !== undefined &&
            isVerbatimQuote(quote.text, listed.chunk_text, listed.heading_path ?? []),
        );
        if (!verbatim) nonVerbatimQuotes += 1;
      }
      answers.push({
        questionId: question.id,
        answer: result.response,
        sourceDocuments,
        relevant: question.relevant,
      });
    }
    const querySeconds = (performance.now() - queryStarted) / 1000;
    log(`${questions.length} questions asked in ${querySeconds.toFixed(1)} s`);
    return {
      scores: citationScores(answers),
      answers,
      chunksIndexed: crawled.chunksIndexed,
      nonVerbatimChunks,
      sourcesListed,
      nonVerbatimQuotes,
      quotes,
      syncSeconds,
      querySeconds,
    };
  } finally {
    await crawled?.site.close();
    await service.end();
  }
}
