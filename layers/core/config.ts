import { z } from 'zod';
import { ENVIRONMENTS } from './domain/environments';

/**
 * The cloud functions' configuration, parsed once from the environment the
 * CDK stack sets (STYLE.md §5). A missing or wrong value fails the cold start
 * with a message naming it, rather than a request later.
 */
const cloudConfigSchema = z.object({
  TABLE_NAME: z.string().min(3),
  /** D10: which keys this deployment accepts. */
  SVC_ENVIRONMENT: z.enum(ENVIRONMENTS),
  SYNC_QUEUE_URL: z.url(),
  DELIVERY_QUEUE_URL: z.url(),
  /** D33: the KMS key that seals webhook secrets (and, later, model keys and OAuth tokens). */
  SECRETS_KEY_ARN: z.string().startsWith('arn:'),
  AWS_REGION: z.string().min(1),
  /** D25: the bucket uploaded files go to (lib/constructs/file-store.ts). */
  FILE_BUCKET_NAME: z.string().min(3),
  /** The OpenSearch domain's endpoint (host, https), SigV4-signed. */
  OPENSEARCH_ENDPOINT: z.string().min(1),
  /** D36: OpenAI (or a compatible endpoint) instead of the offline defaults. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
});

export type CloudConfig = z.infer<typeof cloudConfigSchema>;

export function parseCloudConfig(env: NodeJS.ProcessEnv): CloudConfig {
  const parsed = cloudConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid function configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
