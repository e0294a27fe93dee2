import { KB_ROUTES } from '../../layers/core/http/routes/kb';
import type { EndpointFamily } from '../endpoint-family';

/** The knowledge base: published article changes go to the sync queue for the sync worker to index. */
export const family: EndpointFamily = {
  name: 'kb',
  routes: KB_ROUTES,
  needs: { sendsTo: ['syncJobs'] },
  entry: () => require('./handler') as typeof import('./handler'),
};
