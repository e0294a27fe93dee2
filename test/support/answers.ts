import { normalizeWhitespace } from '../../layers/core/domain/retrieval/verbatim';
/** Checks of a Query result (spec; D18) shared by the query end-to-end tests. */

/** Every `[n]` (or `[n, m]`) marker of an answer, as source numbers, in order. */
export function citationNumbers(response: string): number[] {
  return [...response.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)].flatMap((marker) =>
    (marker[1] ?? '').split(',').map((part) => Number(part.trim())),
  );
}

/** D18: a cited source, exactly. */
export const citedSource = {
  chunk_id: expect.stringMatching(/^chk_/),
  document_id: expect.stringMatching(/^doc_/),
  data_source_id: expect.stringMatching(/^ds_/),
  document_title: expect.any(String),
  document_url: expect.any(String),
  rank: expect.any(Number),
  score: expect.any(Number),
  similarity_score: expect.any(Number),
  chunk_text: expect.any(String),
  quoted_ranges: expect.any(Array),
};

/** D18: the metadata of a Query result, exactly. */
export function queryMetadata(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    interaction_id: expect.stringMatching(/^int_[0-9a-z]{26}$/),
    session_id: expect.stringMatching(/^sess_[0-9a-z]{26}$/),
    latency_ms: expect.any(Number),
    tokens_input: expect.any(Number),
    tokens_output: expect.any(Number),
    cost_usd: expect.any(Number),
    rag_strategy: expect.any(String),
    model: expect.any(String),
    // P131: the service's provider unless the agent names a model key.
    billed_to: 'service',
    model_key_id: null,
    groundedness: expect.any(Number),
    ...overrides,
  };
}

/**
 * A Query result as D18 describes it: `response`, `sources` and `metadata`
 * and nothing else; integers where the spec says integer; every citation
 * `[n]` naming one of the sources, and (unless `requireCitations` is false)
 * at least one when there are sources.
 */
export function expectQueryResult(
  body: Record<string, any>,
  metadata: Record<string, unknown> = {},
  options: {
    /** An answer from sources cites one; off for questions the sources may not answer. */
    readonly requireCitations?: boolean;
  } = {},
): void {
  expect(body).toEqual({
    response: expect.any(String),
    sources: expect.any(Array),
    metadata: queryMetadata(metadata),
  });
  for (const source of body.sources) expect(source).toEqual(citedSource);
  for (const field of ['latency_ms', 'tokens_input', 'tokens_output']) {
    expect(Number.isInteger(body.metadata[field])).toBe(true);
    expect(body.metadata[field]).toBeGreaterThanOrEqual(0);
  }
  expect(body.metadata.cost_usd).toBeGreaterThanOrEqual(0);
  expect(body.metadata.groundedness).toBeGreaterThanOrEqual(0);
  expect(body.metadata.groundedness).toBeLessThanOrEqual(1);
  // The quoted ranges are sorted, disjoint ranges of each source's text.
  for (const source of body.sources) {
    let previousEnd = 0;
    for (const range of source.quoted_ranges) {
      expect(range).toEqual({ start: expect.any(Number), end: expect.any(Number) });
      expect(range.start).toBeGreaterThanOrEqual(previousEnd);
      expect(range.end).toBeGreaterThan(range.start);
      expect(range.end).toBeLessThanOrEqual(source.chunk_text.length);
      previousEnd = range.end;
    }
  }
  const cited = citationNumbers(body.response);
  for (const number of cited) {
    expect(number).toBeGreaterThanOrEqual(1);
    expect(number).toBeLessThanOrEqual(body.sources.length);
  }
  if ((options.requireCitations ?? true) && body.sources.length > 0) {
    expect(cited.length).toBeGreaterThan(0);
  }
  // Issue 10, P174: every listed source is cited, and none is listed that is not.
  expect([...new Set(cited)].sort((a, b) => a - b)).toEqual(
    body.sources.map((_: unknown, index: number) => index + 1),
  );
  expect(new Set(body.sources.map((source: any) => source.chunk_id)).size).toBe(
    body.sources.length,
  );
}

/**
 * The offline-extractive model (D20) quotes its sources: the text before
 * each marker, back to the previous one, is a sentence of the cited chunk.
 */
export function expectQuotesFromCitedSources(body: Record<string, any>): void {
  const pieces = body.response.split(/\[\d+\]/) as string[];
  const numbers = citationNumbers(body.response);
  numbers.forEach((number, index) => {
    // Issue 10: the quote is verbatim (after the one whitespace normalization).
    const quoted = normalizeWhitespace(pieces[index] ?? '');
    const chunk = normalizeWhitespace(body.sources[number - 1].chunk_text);
    expect(chunk).toContain(quoted);
  });
}
