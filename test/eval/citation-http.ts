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
import { normalizeWhitespace } from '../../layers/core/domain/retrieval/verbatim';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { type LoopbackSite, sitemapXml, startLoopbackSite } from '../support/loopback-site';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { type CitationScores, type CitingAnswer, citationScores } from './citation-scoring';

export interface EvalDocument {
  readonly id: string;
  readonly title: string;
  readonly paragraphs: readonly string[];
}

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

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function page(document: EvalDocument): string {
  return [
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(document.title)}</title></head>`,
    '<body><main>',
    ...document.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    '</main></body></html>',
  ].join('\n');
}

const pathOf = (id: string) => `/doc/${encodeURIComponent(id)}`;

async function call(
  service: TestService,
  key: string,
  path: string,
  method: string,
  body?: unknown,
): Promise<Record<string, any>> {
  const response = await api(service.url, path, {
    method,
    key,
    ...(body === undefined ? {} : { body }),
  });
  if (response.status >= 300) {
    throw new Error(`${method} ${path}: ${response.status} ${String(response.body).slice(0, 300)}`);
  }
  return json(response);
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
  let site: LoopbackSite | undefined;
  try {
    const paths = documents.map((document) => pathOf(document.id));
    site = await startLoopbackSite((origin) => ({
      '/robots.txt': `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`,
      '/sitemap.xml': (res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(sitemapXml(origin, paths));
      },
      '/': '<!doctype html><html><head><title>Collection</title></head><body></body></html>',
      ...Object.fromEntries(documents.map((document) => [pathOf(document.id), page(document)])),
    }));
    const tenant: TestKey = await createTenant(service, { name: 'citation eval' });
    const admin = tenant.key;

    const syncStarted = performance.now();
    const source = await call(service, admin, '/api/v1/data-sources', 'POST', {
      type: 'website',
      name: 'Eval collection',
      config: { url: site.url('/'), max_pages: Math.min(10_000, documents.length + 1) },
      sync_frequency: 'manual',
    });
    await call(service, admin, `/api/v1/data-sources/${source.id}/sync`, 'POST');
    await service.runtime.workers.stepSync();
    const status = await call(service, admin, `/api/v1/data-sources/${source.id}/status`, 'GET');
    if (status.status !== 'active') throw new Error(`sync ended ${JSON.stringify(status)}`);
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    log(
      `crawled ${documents.length} pages, ${status.chunks_indexed} chunks in ${syncSeconds.toFixed(1)} s`,
    );

    const agent = await call(service, admin, '/api/v1/agents', 'POST', {
      name: 'Citation eval agent',
      data_source_ids: [source.id],
    });
    const keys = await Promise.all(
      Array.from({ length: Math.ceil(questions.length / 100) + 1 }, () =>
        createKey(service, tenant.orgId, { scopes: ['Execute'] }),
      ),
    );

    const byPath = new Map(documents.map((document) => [site?.url(pathOf(document.id)), document]));
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
      const key = keys[index % keys.length]?.key ?? admin;
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
      const chunkTexts = sources.map((listed) => normalizeWhitespace(listed.chunk_text));
      for (const span of (result.response as string).split(/\s*\[\d+(?:\s*,\s*\d+)*\]\s*/)) {
        if (span.trim() === '' || sources.length === 0) continue;
        quotes += 1;
        if (!chunkTexts.some((text) => text.includes(normalizeWhitespace(span)))) {
          nonVerbatimQuotes += 1;
        }
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
      chunksIndexed: status.chunks_indexed,
      nonVerbatimChunks,
      sourcesListed,
      nonVerbatimQuotes,
      quotes,
      syncSeconds,
      querySeconds,
    };
  } finally {
    await site?.close();
    await service.end();
  }
}
