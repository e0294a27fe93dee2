import { DynamoDbAgentRepository } from '../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbUploadedFileRepository } from '../../layers/core/adapters/dynamodb/uploaded-file-repository';
import { cloudEmbedder } from '../../layers/core/wiring/cloud/cloud-embedder';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Semantic search: the index, the query's embedder, the organization's data
 * sources and agents; uploaded files' records, listed with a source's documents.
 */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    ...cloudHttpPlatform(),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    // A user restricted to some agents searches their data sources only.
    agents: new DynamoDbAgentRepository(client, tableName),
    retrieval: cloudRetrievalIndex(),
    // A file source's documents are its upload records (listed in every state).
    files: new DynamoDbUploadedFileRepository(client, tableName),
    embedder: cloudEmbedder(),
  };
});

export type SearchDependencies = ReturnType<typeof dependencies>;
