import { Logger } from '@aws-lambda-powertools/logger';
import type { CdkCustomResourceEvent, CdkCustomResourceResponse } from 'aws-lambda';
import { searchIndexBootstrap } from '../../layers/core/wiring/search-index-bootstrap';

const logger = new Logger({ serviceName: 'svc-search-index-bootstrap' });

/**
 * The OpenSearch index bootstrap (issue 3), a CloudFormation custom resource
 * behind the CDK Provider framework: on Create and Update it makes sure the
 * chunk index of every configured embedder exists with the current mappings;
 * on Delete it does nothing, because the indexes hold the organizations' data
 * and outlive the resource (the domain itself is retained too).
 *
 * A thrown error fails the deployment step with its message (the Provider
 * framework reports it to CloudFormation).
 */
export async function handler(event: CdkCustomResourceEvent): Promise<CdkCustomResourceResponse> {
  if (event.RequestType === 'Delete') {
    logger.info('Leaving the search indexes in place', {
      physicalResourceId: event.PhysicalResourceId,
    });
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  const bootstrap = searchIndexBootstrap();
  const ensured = await bootstrap.ensureIndexes();
  logger.info('Search indexes ready', { requestType: event.RequestType, indexes: ensured });
  return {
    // One resource per index prefix: the same id on every update, so CloudFormation never replaces it.
    PhysicalResourceId: `search-indexes:${bootstrap.indexPrefix}`,
    Data: { IndexNames: ensured.map((index) => index.indexName).join(',') },
  };
}
