import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';
import type { IndexPurgeMessage } from '../../ports/sync-job-queue.port';

export interface PurgeDependencies {
  readonly retrieval: Pick<RetrievalIndex, 'deleteDataSource' | 'deleteDocument' | 'count'>;
  readonly dataSources: Pick<DataSourceRepository, 'recordDirectIndexing'>;
}

/**
 * Removes the chunks a deletion left in the index. Idempotent: a
 * purge delivered twice deletes nothing the second time. After a document's
 * purge the data source's chunk count is taken again (it may be gone too,
 * then nothing is recorded).
 */
export async function purgeIndex(
  deps: PurgeDependencies,
  message: IndexPurgeMessage,
): Promise<void> {
  const { org_id: orgId, data_source_id: dataSourceId } = message;
  if (message.purge === 'data_source') {
    await deps.retrieval.deleteDataSource(orgId, dataSourceId);
    return;
  }
  await deps.retrieval.deleteDocument(orgId, dataSourceId, message.document_id);
  await deps.dataSources.recordDirectIndexing(orgId, dataSourceId, {
    chunksIndexed: await deps.retrieval.count({ orgId, dataSourceIds: [dataSourceId] }),
  });
}
