/**
 * What the OpenSearchRetrievalIndex tests share: the organization, data
 * sources and embedder they use, two chunks, and the answers of a cluster
 * whose chunk index already exists.
 */
import type { IndexedChunk } from '../../../../layers/core/ports/retrieval-index.port';
import { fixture, type Reply } from './recording-opensearch';

export const ORG = 'org_01JORGAAAAAAAAAAAAAAAAAAAA';
export const DS_A = 'ds_01JDSAAAAAAAAAAAAAAAAAAAAA';
export const DS_B = 'ds_01JDSBBBBBBBBBBBBBBBBBBBBB';
export const EMBEDDER = 'fixture-embedder/3';
export const INDEX = 'svc-chunks-fixture-embedder-3';
export const OTHERS = `svc-chunks-*,-${INDEX}`;

export const chunk = (overrides: Partial<IndexedChunk> = {}): IndexedChunk => ({
  chunk_id: 'chk_01JAAAAAAAAAAAAAAAAAAAAAA1',
  org_id: ORG,
  data_source_id: DS_A,
  document_id: 'doc_01JDOCAAAAAAAAAAAAAAAAAAAA',
  document_title: 'Refund policy',
  document_url: 'https://example.com/help/refunds',
  heading_path: ['Refunds', 'Timing'],
  text: 'Refunds are issued within 14 days of the return arriving.',
  position: 0,
  document_hash: '3f1c5e',
  embedder_id: EMBEDDER,
  embedding: [0.6, 0.8, 0],
  ...overrides,
});

export const SECOND = chunk({
  chunk_id: 'chk_01JAAAAAAAAAAAAAAAAAAAAAA2',
  data_source_id: DS_B,
  document_id: 'doc_01JDOCBBBBBBBBBBBBBBBBBBBB',
  document_title: 'Shipping',
  document_url: null,
  heading_path: [],
  text: 'Parcels leave the warehouse on weekdays.',
  position: 3,
  document_hash: '9a0b7d',
  embedding: [-0.6, 0, 0.8],
});

/** Answers of a cluster where the index already exists as defined. */
export const existingIndex: [string, RegExp | string, Reply][] = [
  ['HEAD', `/${INDEX}`, { status: 200 }],
  ['GET', `/${INDEX}/_mapping`, { body: fixture('get-mapping') }],
];
