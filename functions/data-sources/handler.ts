import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { DATA_SOURCES_ROUTES } from '../../layers/core/http/routes/data-sources';
import {
  createDataSource,
  deleteDataSource,
  getDataSource,
  getSyncStatus,
  listDataSources,
  requestSync,
  updateDataSource,
} from '../../layers/core/use-cases/data-sources/data-source-use-cases';
import {
  createDataSourceBody,
  dataSourceList,
  dataSourceResource,
  listDataSourcesQuery,
  syncAccepted,
  syncStatusResource,
  updateDataSourceBody,
} from './data-source.schema';
import { documentOperations } from './document-operations';
import { fileOperations } from './file-operations';
import { type DataSourcesDependencies, dependencies } from './wiring';

const operation = operationsWith<DataSourcesDependencies>();

/** Data sources: `/api/v1/data-sources` and the legacy `/api/data-specs`. */
export const operations = {
  listDataSources: operation({
    summary: 'List data sources',
    query: listDataSourcesQuery,
    responses: {
      200: { description: 'A page of data sources, newest first', schema: dataSourceList },
    },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const filter = query.status ? { status: query.status } : {};
      const result = await listDataSources(deps, principal.orgId, filter, page);
      return jsonResponse(200, { data_sources: result.items, total: result.total, ...page });
    },
  }),
  createDataSource: operation({
    summary: 'Create a data source',
    body: createDataSourceBody,
    responses: {
      201: { description: 'The new data source, status pending', schema: dataSourceResource },
    },
    async handle({ body, principal, deps }) {
      return jsonResponse(201, await createDataSource(deps, principal.orgId, body));
    },
  }),
  getDataSource: operation({
    summary: 'Get a data source',
    pathIds: { id: 'dataSource' },
    responses: { 200: { description: 'The data source', schema: dataSourceResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await getDataSource(deps, principal.orgId, params.id ?? ''));
    },
  }),
  updateDataSource: operation({
    summary: 'Update a data source',
    pathIds: { id: 'dataSource' },
    body: updateDataSourceBody,
    responses: { 200: { description: 'The updated data source', schema: dataSourceResource } },
    async handle({ params, body, principal, deps }) {
      return jsonResponse(
        200,
        await updateDataSource(deps, principal.orgId, params.id ?? '', body),
      );
    },
  }),
  deleteDataSource: operation({
    summary: 'Delete a data source (refused while agents use it)',
    pathIds: { id: 'dataSource' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteDataSource(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
  syncDataSource: operation({
    summary: 'Queue a sync job (returns the running job if there is one)',
    pathIds: { id: 'dataSource' },
    responses: {
      202: { description: 'The sync job, queued or already running', schema: syncAccepted },
    },
    async handle({ params, principal, deps }) {
      const result = await requestSync(deps, principal.orgId, params.id ?? '');
      return jsonResponse(202, {
        job: result.job,
        data_source: result.dataSource,
        created: result.created,
      });
    },
  }),
  getSyncStatus: operation({
    summary: 'Sync status and progress',
    pathIds: { id: 'dataSource' },
    responses: { 200: { description: 'The status object', schema: syncStatusResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await getSyncStatus(deps, principal.orgId, params.id ?? ''));
    },
  }),
  ...fileOperations,
  ...documentOperations,
};

export const handler = httpFunction({
  family: 'data-sources',
  routes: DATA_SOURCES_ROUTES,
  operations,
  dependencies,
});
