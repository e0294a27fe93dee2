import { resolve } from 'node:path';
import * as z from 'zod';
import { parseApiKey } from '../../layers/core/domain/api-key';
import { PASSWORD_POLICY } from '../../layers/core/domain/password';
import { USER_LIMITS } from '../../layers/core/domain/user';

const port = z.coerce.number().int().min(0).max(65_535);

/**
 * D36: the one-machine runtime's settings, all from the environment, all
 * with defaults, so `npm start` needs none.
 */
const localConfigSchema = z
  .object({
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(3000),
    SVC_DATA_DIR: z.string().min(1).default('.data'),
    SVC_DYNAMODB_PORT: port.default(8000),
    SVC_BOOTSTRAP_KEY: z
      .string()
      .refine((key) => {
        const parsed = parseApiKey(key);
        return parsed.ok && parsed.environment === 'test';
      }, 'must be a well-formed svcsk_test_… key with a valid checksum (D10)')
      .optional(),
    /** D36: the first web administrator of the bootstrap organization (both or neither, P67). */
    SVC_BOOTSTRAP_ADMIN_EMAIL: z
      .string()
      .trim()
      .max(USER_LIMITS.emailMax)
      .pipe(z.email('must be an email address'))
      .optional(),
    SVC_BOOTSTRAP_ADMIN_PASSWORD: z
      .string()
      .min(PASSWORD_POLICY.minLength, `must have at least ${PASSWORD_POLICY.minLength} characters`)
      .max(PASSWORD_POLICY.maxLength)
      .optional(),
    SVC_TABLE_NAME: z.string().min(3).default('svc'),
    /** Keep everything in memory instead of SVC_DATA_DIR (tests, benchmarks). */
    SVC_IN_MEMORY: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('WARN'),
    /** D35: lets webhooks (and later the crawler) reach loopback/private addresses. Local runs and tests only. */
    SVC_ALLOW_PRIVATE_URLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    /** A PEM file of CA certificates trusted beside the system's for outbound HTTPS (a private test CA). */
    SVC_EXTRA_CA_FILE: z.string().min(1).optional(),
    /** D29's 10 s receiver timeout; shorter only for tests. */
    SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(10_000),
    /** D14: DNS servers for domain verification (`host` or `host:port`, comma-separated); the system's by default. */
    SVC_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value) =>
        value
          ? value
              .split(',')
              .map((server) => server.trim())
              .filter(Boolean)
          : undefined,
      ),
    /** P91: the address browsers reach the service at, if not http://HOST:PORT (a proxy in front). */
    SVC_PUBLIC_URL: z.url().optional(),
    /** A real OpenSearch (plain HTTP) instead of the embedded index (issue 3). */
    OPENSEARCH_URL: z.url().optional(),
    /** D36: OpenAI (or a compatible endpoint) instead of the offline embedder and answerer. */
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    /** How often the local workers publish outbox events and dispatch deliveries; 0 stops them (tests step them by hand). */
    SVC_WORKER_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(200),
    /**
     * D23: how often the local scheduler looks for scheduled data sources that
     * are due (the cloud's EventBridge rule runs every 5 minutes); 0 turns it
     * off. Nothing runs while SVC_WORKER_INTERVAL_MS is 0.
     */
    SVC_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  })
  .refine(
    (config) =>
      (config.SVC_BOOTSTRAP_ADMIN_EMAIL === undefined) ===
      (config.SVC_BOOTSTRAP_ADMIN_PASSWORD === undefined),
    {
      path: ['SVC_BOOTSTRAP_ADMIN_PASSWORD'],
      message: 'SVC_BOOTSTRAP_ADMIN_EMAIL and SVC_BOOTSTRAP_ADMIN_PASSWORD go together',
    },
  );

export type LocalConfig = z.infer<typeof localConfigSchema> & { readonly dataDir: string };

export function parseLocalConfig(env: NodeJS.ProcessEnv): LocalConfig {
  const parsed = localConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return { ...parsed.data, dataDir: resolve(parsed.data.SVC_DATA_DIR) };
}
