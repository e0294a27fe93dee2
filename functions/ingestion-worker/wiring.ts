import { DynamoDbDataSourceRepository } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbUploadedFileRepository } from '../../layers/core/adapters/dynamodb/uploaded-file-repository';
import { uploadedFileParser } from '../../layers/core/adapters/parsing/file-parser';
import { inProcessChunker } from '../../layers/core/adapters/parsing/in-process-chunker';
import { systemClock } from '../../layers/core/ports/clock.port';
import { cloudFileStorage } from '../../layers/core/wiring/cloud/cloud-file-storage';
import { cloudModels } from '../../layers/core/wiring/cloud/cloud-models';
import { cloudRetrievalIndex } from '../../layers/core/wiring/cloud/cloud-retrieval';
import { cloudTable } from '../../layers/core/wiring/cloud/cloud-table';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** The ingestion worker: the uploads in S3, the file parsers, the embedder, the index. */
export const dependencies = compositionRoot(() => {
  const { client, tableName } = cloudTable();
  return {
    clock: systemClock,
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    files: new DynamoDbUploadedFileRepository(client, tableName),
    fileStorage: cloudFileStorage(),
    fileParser: uploadedFileParser,
    chunker: inProcessChunker,
    retrieval: cloudRetrievalIndex(),
    embedder: cloudModels().embedder,
  };
});
