import { S3Client } from '@aws-sdk/client-s3';
import { outageAsUnavailable } from '../../adapters/aws/outage-as-unavailable';
import { S3FileStorage } from '../../adapters/aws/s3-file-storage';
import { parseCloudConfig } from '../../config';
import { traceAwsClient } from '../../observability/tracing';
import type { FileStorage } from '../../ports/file-storage.port';

/** D25: uploaded files in the stack's bucket. */
export function cloudFileStorage(): FileStorage {
  const config = parseCloudConfig('fileBucket');
  const s3 = new S3Client({ region: config.AWS_REGION });
  s3.middlewareStack.use(outageAsUnavailable);
  return new S3FileStorage(traceAwsClient(s3), config.FILE_BUCKET_NAME);
}
