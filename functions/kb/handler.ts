import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { KB_ROUTES } from '../../layers/core/http/routes/kb';
import {
  createKbArticle,
  deleteKbArticle,
  getKbArticle,
  getKbArticleVersion,
  listKbArticles,
  listKbArticleVersions,
  parseVersionNumber,
  updateKbArticle,
} from '../../layers/core/use-cases/kb/kb-article-use-cases';
import {
  createKbArticleBody,
  kbArticleList,
  kbArticleResource,
  kbArticleVersionList,
  kbArticleVersionResource,
  listKbArticlesQuery,
  listKbVersionsQuery,
  updateKbArticleBody,
} from './kb-article.schema';
import { dependencies, type KbDependencies } from './wiring';

const operation = operationsWith<KbDependencies>();

/** Knowledge-base articles and their versions: `/api/v1/kb` and the legacy `/api/kb`. */
export const operations = {
  listKbArticles: operation({
    summary: 'List knowledge-base articles (without content)',
    query: listKbArticlesQuery,
    responses: {
      200: { description: 'A page of articles, newest first', schema: kbArticleList },
    },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const filter = {
        ...(query.status ? { status: query.status } : {}),
        ...(query.tag ? { tag: query.tag } : {}),
      };
      const result = await listKbArticles(deps, principal.orgId, filter, page);
      return jsonResponse(200, {
        articles: result.items,
        total: result.total,
        ...page,
        data_source_id: result.dataSourceId,
      });
    },
  }),
  createKbArticle: operation({
    summary: 'Create a knowledge-base article (version 1)',
    body: createKbArticleBody,
    responses: { 201: { description: 'The new article', schema: kbArticleResource } },
    async handle({ body, principal, deps }) {
      return jsonResponse(201, await createKbArticle(deps, principal.orgId, body));
    },
  }),
  getKbArticle: operation({
    summary: 'Get a knowledge-base article (its latest version)',
    pathIds: { id: 'kbArticle' },
    responses: { 200: { description: 'The article', schema: kbArticleResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await getKbArticle(deps, principal.orgId, params.id ?? ''));
    },
  }),
  updateKbArticle: operation({
    summary: 'Update a knowledge-base article (records version n+1)',
    pathIds: { id: 'kbArticle' },
    body: updateKbArticleBody,
    responses: {
      200: { description: 'The article at its new version', schema: kbArticleResource },
    },
    async handle({ params, body, principal, deps }) {
      return jsonResponse(200, await updateKbArticle(deps, principal.orgId, params.id ?? '', body));
    },
  }),
  deleteKbArticle: operation({
    summary: 'Delete a knowledge-base article and its versions',
    pathIds: { id: 'kbArticle' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteKbArticle(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
  listKbArticleVersions: operation({
    summary: "List an article's versions (without content), newest first",
    pathIds: { id: 'kbArticle' },
    query: listKbVersionsQuery,
    responses: { 200: { description: 'A page of versions', schema: kbArticleVersionList } },
    async handle({ query, params, principal, deps }) {
      const page = pageRequest(query);
      const result = await listKbArticleVersions(deps, principal.orgId, params.id ?? '', page);
      return jsonResponse(200, { versions: result.items, total: result.total, ...page });
    },
  }),
  getKbArticleVersion: operation({
    summary: 'Get one version of an article',
    pathIds: { id: 'kbArticle' },
    responses: { 200: { description: 'The version', schema: kbArticleVersionResource } },
    async handle({ params, principal, deps }) {
      const version = parseVersionNumber(params.version);
      return jsonResponse(
        200,
        await getKbArticleVersion(deps, principal.orgId, params.id ?? '', version),
      );
    },
  }),
};

export const handler = httpFunction({
  family: 'kb',
  routes: KB_ROUTES,
  operations,
  dependencies,
});
