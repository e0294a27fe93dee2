import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbKbArticleRepository } from '../../layers/core/adapters/dynamodb/kb-article-repository';
import { DynamoDbUploadedFileRepository } from '../../layers/core/adapters/dynamodb/uploaded-file-repository';
import { crawlerPolicy } from '../../layers/core/adapters/net/outbound-policy';
import { uploadedFileParser } from '../../layers/core/adapters/parsing/file-parser';
import { inProcessChunker } from '../../layers/core/adapters/parsing/in-process-chunker';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudFileStorage } from '../../layers/core/wiring/cloud/cloud-file-storage';
import { cloudModels } from '../../layers/core/wiring/cloud/cloud-models';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';
import { sourceReaders } from '../../layers/core/wiring/source-readers';

/**
 * The sync worker: the index's writer. Crawler and file parsers (reading
 * sources), the embedder, the index (also for purges after deletions, P45),
 * the knowledge-base articles (P119).
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  const files = new DynamoDbUploadedFileRepository(client, tableName);
  const kbArticles = new DynamoDbKbArticleRepository(client, tableName);
  return {
    clock: systemClock,
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    retrieval: cloudRetrievalIndex(),
    embedder: cloudModels().embedder,
    chunker: inProcessChunker,
    // P119: published knowledge-base articles are parsed as Markdown and indexed here.
    fileParser: uploadedFileParser,
    kbArticles,
    readerFor: sourceReaders({
      // D35: private addresses are never allowed in the cloud.
      outboundPolicy: crawlerPolicy({ allowPrivateAddresses: false }),
      files,
      fileStorage: cloudFileStorage(),
      fileParser: uploadedFileParser,
      kbArticles,
    }),
  };
});
