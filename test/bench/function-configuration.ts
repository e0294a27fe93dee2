/**
 * The configuration a deployed function finds in its environment, with
 * placeholder values, for benches that load a bundle as Lambda would (the
 * cold-start section). One object for every function: the keys of
 * layers/core/config.ts and layers/core/wiring/search-index-bootstrap.ts,
 * whichever function parses them. A function ignores the keys it does not
 * read (zod objects strip unknown keys), so a key added for one function —
 * such as MODEL_SECRET_ARN, on its way from main — is added here once.
 *
 * Placeholders only: nothing here is contacted. A function that builds its
 * composition at module load parses these values and constructs its clients;
 * none of them makes a network call before its first request.
 */
export const FUNCTION_CONFIGURATION = {
  TABLE_NAME: 'agent-query-service-test-table',
  SVC_ENVIRONMENT: 'test',
  SYNC_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-query-service-test-sync',
  DELIVERY_QUEUE_URL:
    'https://sqs.us-east-1.amazonaws.com/123456789012/agent-query-service-test-delivery',
  EVAL_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-query-service-test-evals',
  SECRETS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000000',
  FILE_BUCKET_NAME: 'agent-query-service-test-files',
  OPENSEARCH_ENDPOINT: 'search-agent-query-service-test-0000000000.us-east-1.es.amazonaws.com',
  SEARCH_INDEX_PREFIX: 'svc-chunks',
  SEARCH_EMBEDDERS: JSON.stringify([{ id: 'offline-hash-v1/384', dimensions: 384 }]),
  MODEL_SECRET_ARN:
    'arn:aws:secretsmanager:us-east-1:123456789012:secret:agent-query-service-test-model-000000',
  // Every HTTP family checks sessions (P64): its secret is read at the first session, not at init.
  SESSION_SECRET_ARN:
    'arn:aws:secretsmanager:us-east-1:123456789012:secret:agent-query-service-test-session-000000',
} as const satisfies Readonly<Record<string, string>>;
