import { S3Client } from '@aws-sdk/client-s3';
import { outageAsUnavailable } from '../../adapters/aws/outage-as-unavailable';
import { S3FileStorage } from '../../adapters/aws/s3-file-storage';
import type { CloudConfigOf } from '../../config';
import { traceAwsClient } from '../../observability/tracing';
import type { FileStorage } from '../../ports/file-storage.port';

/** The S3 client and adapter behind cloudFileStorage, in a module of their own so they load on first use. */
export function connectS3FileStorage(config: CloudConfigOf<'fileBucket'>): FileStorage {
  const s3 = new S3Client({ region: config.AWS_REGION });
  s3.middlewareStack.use(outageAsUnavailable);
  return new S3FileStorage(traceAwsClient(s3), config.FILE_BUCKET_NAME);
}
