import type { Route } from '../route';

/** Semantic search, and a data source's documents as the index holds them: the `search` function's rows of the route table (layers/core/http/routes/route-table.ts). */
export const SEARCH_ROUTES: readonly Route[] = [
  // Semantic search (Execute: /api/semantic-search = /api/v1/semantic-search)
  {
    method: 'POST',
    path: '/api/v1/semantic-search',
    family: 'search',
    operation: 'semanticSearch',
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/semantic-search',
    family: 'search',
    operation: 'semanticSearch',
    scope: 'Execute',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/semantic-search',
  },
  // A data source's documents and their chunks, whatever their origin: read from the index (and a file source's records)
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}/documents',
    family: 'search',
    operation: 'listDocuments',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}/documents/{document_id}/chunks',
    family: 'search',
    operation: 'getDocumentChunks',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
];
