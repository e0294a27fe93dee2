import type { Route } from '../route';

/**
 * Knowledge-base articles: the `kb` function's rows of the route table
 * (layers/core/http/routes/route-table.ts). Reading takes Read or `readonly`; writing takes Write
 * or `train` ("train adds feedback and KB editing").
 */
export const KB_ROUTES: readonly Route[] = [
  // Articles (v1)
  {
    method: 'GET',
    path: '/api/v1/kb',
    family: 'kb',
    operation: 'listKbArticles',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/kb',
    family: 'kb',
    operation: 'createKbArticle',
    scope: 'Write',
    role: 'train',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/kb/{id}',
    family: 'kb',
    operation: 'getKbArticle',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'PUT',
    path: '/api/v1/kb/{id}',
    family: 'kb',
    operation: 'updateKbArticle',
    scope: 'Write',
    role: 'train',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/kb/{id}',
    family: 'kb',
    operation: 'deleteKbArticle',
    scope: 'Write',
    role: 'train',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/kb/{id}/versions',
    family: 'kb',
    operation: 'listKbArticleVersions',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/kb/{id}/versions/{version}',
    family: 'kb',
    operation: 'getKbArticleVersion',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  // Legacy (`/api/kb` as in v1: the three operations the spec's legacy table lists)
  {
    method: 'GET',
    path: '/api/kb',
    family: 'kb',
    operation: 'listKbArticles',
    scope: 'Read',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/kb',
  },
  {
    method: 'POST',
    path: '/api/kb',
    family: 'kb',
    operation: 'createKbArticle',
    scope: 'Write',
    role: 'train',
    api: 'legacy',
    successor: '/api/v1/kb',
  },
  {
    method: 'PUT',
    path: '/api/kb/{id}',
    family: 'kb',
    operation: 'updateKbArticle',
    scope: 'Write',
    role: 'train',
    api: 'legacy',
    successor: '/api/v1/kb/{id}',
  },
];
