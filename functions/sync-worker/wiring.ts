import { connectors } from '../../layers/core/adapters/connectors/connectors';
import { DynamoDbConnectionStore } from '../../layers/core/adapters/dynamodb/connection-store';
import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbKbArticleRepository } from '../../layers/core/adapters/dynamodb/kb-article-repository';
import { DynamoDbUploadedFileRepository } from '../../layers/core/adapters/dynamodb/uploaded-file-repository';
import { crawlerPolicy, webhookPolicy } from '../../layers/core/adapters/net/outbound-policy';
import { uploadedFileParser } from '../../layers/core/adapters/parsing/file-parser';
import { inProcessChunker } from '../../layers/core/adapters/parsing/in-process-chunker';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudConnectorApps } from '../../layers/core/wiring/cloud/cloud-connectors';
import { cloudFileStorage } from '../../layers/core/wiring/cloud/cloud-file-storage';
import { cloudModels } from '../../layers/core/wiring/cloud/cloud-models';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';
import { sourceReaders } from '../../layers/core/wiring/source-readers';

/**
 * The sync worker: the index's writer. Crawler, file parsers and connectors
 * (reading sources; connectors with their sealed grants, which a refresh
 * re-seals), the embedder, the index (also for purges after deletions),
 * the knowledge-base articles.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  const files = new DynamoDbUploadedFileRepository(client, tableName);
  // Provider APIs over https to public addresses only.
  const built = connectors({
    policy: webhookPolicy({ allowPrivateAddresses: false }),
    clock: systemClock,
    fileParser: uploadedFileParser,
  });
  const connectorApps = cloudConnectorApps();
  const secretSealer = cloudSecretSealer();
  const kbArticles = new DynamoDbKbArticleRepository(client, tableName);
  const fileStorage = cloudFileStorage();
  return {
    // Files indexed again when a person asks (the same work as an upload's ingestion).
    files,
    fileStorage,
    // Revoking deleted sources' grants.
    oauthClients: built.oauth,
    connectorApps,
    secretSealer,
    clock: systemClock,
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    retrieval: cloudRetrievalIndex(),
    embedder: cloudModels().embedder,
    chunker: inProcessChunker,
    // Published knowledge-base articles are parsed as Markdown and indexed here.
    fileParser: uploadedFileParser,
    kbArticles,
    readerFor: sourceReaders({
      // Private addresses are never allowed in the cloud.
      outboundPolicy: crawlerPolicy({ allowPrivateAddresses: false }),
      files,
      fileStorage,
      fileParser: uploadedFileParser,
      connectors: {
        built,
        grants: {
          connections: new DynamoDbConnectionStore(client, tableName),
          secretSealer,
          connectorApps,
          clock: systemClock,
        },
      },
      kbArticles,
    }),
  };
});
