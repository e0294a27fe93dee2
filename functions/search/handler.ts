import { publicOriginOf } from '../../layers/core/http/console-url';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { SEARCH_ROUTES } from '../../layers/core/http/routes/search';
import { semanticSearch } from '../../layers/core/use-cases/retrieval/semantic-search';
import { documentOperations } from './document-operations';
import { semanticSearchBody, semanticSearchResult } from './search.schema';
import { dependencies, type SearchDependencies } from './wiring';

const operation = operationsWith<SearchDependencies>();

/** Semantic search (spec): chunks without an answer; a data source's documents and chunks. */
export const operations = {
  semanticSearch: operation({
    summary: "Search the organization's chunks by meaning (no answer generated)",
    body: semanticSearchBody,
    responses: { 200: { description: 'The best chunks', schema: semanticSearchResult } },
    async handle({ body, principal, client, deps }) {
      return jsonResponse(
        200,
        await semanticSearch(deps, principal, {
          ...body,
          link_origin: publicOriginOf(deps, client),
        }),
      );
    },
  }),
  ...documentOperations,
};

export const handler = httpFunction({
  family: 'search',
  routes: SEARCH_ROUTES,
  operations,
  dependencies,
});
