import { DATA_SOURCES_ROUTES } from '../../layers/core/http/routes/data-sources';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Data sources: sync jobs and index purges go to the sync queue (the sync
 * worker deletes chunks); uploads are presigned here (a presigned
 * POST is signed with this role, so the role needs PutObject, and GetObject
 * for the downloads cited files open at) and deleted here.
 */
export const family: EndpointFamily = {
  name: 'data-sources',
  routes: DATA_SOURCES_ROUTES,
  needs: { sendsTo: ['syncJobs'], files: true },
  entry: () => require('./handler') as typeof import('./handler'),
};
