import { resolve } from 'node:path';
import * as z from 'zod/mini';
import {
  BEDROCK_EMBEDDING_MODEL_IDS,
  bedrockDimensionsFit,
} from '../../layers/core/adapters/ai/bedrock-models';
import {
  bedrockEmbeddingDimensions,
  bedrockModelId,
  webhookSourceIpsChangedAt,
  webOrigin,
} from '../../layers/core/config';
import { parseApiKey } from '../../layers/core/domain/api-key';
import { PASSWORD_POLICY } from '../../layers/core/domain/password';
import { USER_LIMITS } from '../../layers/core/domain/user';
import { parseCidrList } from '../../layers/core/domain/webhook-source-addresses';
import '../../layers/core/zod-english';

const port = z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65_535));
const nonEmpty = z.string().check(z.minLength(1));
/** A whole number of milliseconds from the environment, `min`–`max`, `fallback` when unset. */
const milliseconds = (min: number, max: number, fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.minimum(min), z.maximum(max)), fallback);
/** `true` or `false` (default) in the environment, as a boolean. */
const onOff = z.pipe(
  z._default(z.enum(['true', 'false']), 'false'),
  z.transform((value: 'true' | 'false') => value === 'true'),
);

/**
 * `SVC_WEBHOOK_SOURCE_IPS`, comma-separated CIDR ranges (`/32` or
 * `/128` for one address), each checked and made canonical; empty is no
 * fixed addresses, unset is `fallback`.
 */
const webhookSourceIpList = (fallback: string) =>
  z.pipe(
    z._default(z.string(), fallback).check(
      z.refine((text) => parseCidrList(text).ok, {
        error: (issue) => {
          const parsed = parseCidrList(String(issue.input));
          return parsed.ok
            ? 'must be CIDR ranges'
            : `must be CIDR ranges, comma-separated (${parsed.problem})`;
        },
      }),
    ),
    z.transform((text: string) => {
      const parsed = parseCidrList(text);
      return parsed.ok ? parsed.cidrs : [];
    }),
  );

/** Where a local runtime's deliveries come from by default: this machine's loopback. */
export const LOCAL_WEBHOOK_SOURCE_IPS = '127.0.0.1/32,::1/128';

/**
 * The one-machine runtime's settings, all from the environment, all
 * with defaults, so `npm start` needs none.
 */
const localConfigSchema = z
  .object({
    HOST: z._default(nonEmpty, '127.0.0.1'),
    PORT: z._default(port, 3000),
    SVC_DATA_DIR: z._default(nonEmpty, '.data'),
    SVC_DYNAMODB_PORT: z._default(port, 8000),
    SVC_BOOTSTRAP_KEY: z.optional(
      z.string().check(
        z.refine((key) => {
          const parsed = parseApiKey(key);
          return parsed.ok && parsed.environment === 'test';
        }, 'must be a well-formed svcsk_test_… key with a valid checksum'),
      ),
    ),
    /** The first web administrator of the bootstrap organization (both or neither). */
    SVC_BOOTSTRAP_ADMIN_EMAIL: z.optional(
      z.pipe(
        z.string().check(z.trim(), z.maxLength(USER_LIMITS.emailMax)),
        z.email('must be an email address'),
      ),
    ),
    SVC_BOOTSTRAP_ADMIN_PASSWORD: z.optional(
      z
        .string()
        .check(
          z.minLength(
            PASSWORD_POLICY.minLength,
            `must have at least ${PASSWORD_POLICY.minLength} characters`,
          ),
          z.maxLength(PASSWORD_POLICY.maxLength),
        ),
    ),
    SVC_TABLE_NAME: z._default(z.string().check(z.minLength(3)), 'svc'),
    /** Keep everything in memory instead of SVC_DATA_DIR (tests, benchmarks). */
    SVC_IN_MEMORY: onOff,
    LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'WARN'),
    /** Lets webhooks (and later the crawler) reach loopback/private addresses. Local runs and tests only. */
    SVC_ALLOW_PRIVATE_URLS: onOff,
    /** A PEM file of CA certificates trusted beside the system's for outbound HTTPS (a private test CA). */
    SVC_EXTRA_CA_FILE: z.optional(nonEmpty),
    /** The delivery schedule's 10 s receiver timeout; shorter only for tests. */
    SVC_WEBHOOK_TIMEOUT_MS: milliseconds(100, 10_000, 10_000),
    /**
     * The addresses webhook deliveries leave this machine from, as
     * `GET /api/v1/webhooks/source-ips` publishes them (CIDR ranges,
     * comma-separated): loopback by default, where the local receivers are;
     * the machine's public addresses if it delivers across the internet.
     * Empty: no fixed addresses, and the answer says so.
     */
    SVC_WEBHOOK_SOURCE_IPS: webhookSourceIpList(LOCAL_WEBHOOK_SOURCE_IPS),
    /** When that list last changed (ISO 8601); unset, the answer's `updated_at` is null. */
    SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: z.optional(webhookSourceIpsChangedAt),
    /** DNS servers for domain verification (`host` or `host:port`, comma-separated); the system's by default. */
    SVC_DNS_SERVERS: z.pipe(
      z.optional(z.string()),
      z.transform((value: string | undefined) =>
        value
          ? value
              .split(',')
              .map((server) => server.trim())
              .filter(Boolean)
          : undefined,
      ),
    ),
    /** The address browsers reach the service at, if not http://HOST:PORT (a proxy in front). */
    SVC_PUBLIC_URL: z.optional(z.url()),
    /**
     * The console's origin when a proxy serves it on another origin
     * than the API's (as CloudFront does in the cloud); signed-in changes
     * from it pass the CSRF origin check.
     */
    SVC_CONSOLE_ORIGIN: z.optional(webOrigin),
    /**
     * The SMTP server invitations and password resets are mailed
     * through (`smtp://host:port`, `smtps://user:password@host:465`; nodemailer
     * reads its options from the URL). Unset: no mail is sent, and the
     * terminal shows each mail's link.
     */
    SVC_SMTP_URL: z.optional(
      z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }),
    ),
    /** The From address of that mail (`Name <address>` allowed). */
    SVC_MAIL_FROM: z._default(
      z.string().check(z.minLength(3), z.maxLength(320)),
      'Agent Query Service <no-reply@localhost>',
    ),
    /**
     * The secret a proxy in front (as CloudFront in the cloud) sends
     * in `X-Svc-Origin-Verify`; a request carrying it is judged by the
     * address in `X-Svc-Viewer-Address`. Unset (the default): no header
     * moves the address a request is judged by. At least 22 characters.
     */
    SVC_ORIGIN_VERIFY_SECRET: z.optional(
      z.string().check(z.minLength(22, 'must be at least 22 characters (128 bits of base62)')),
    ),
    /**
     * Issue 12: the Confluence (Atlassian OAuth 2.0 3LO) app's client id
     * and secret (docs/connectors.md); both or neither. Without them,
     * connecting a Confluence source answers 409 and says so.
     */
    SVC_CONFLUENCE_CLIENT_ID: z.optional(nonEmpty),
    SVC_CONFLUENCE_CLIENT_SECRET: z.optional(nonEmpty),
    /** Atlassian's endpoints, for a stand-in (tests); the real ones by default. */
    SVC_ATLASSIAN_AUTH_URL: z.optional(z.url()),
    SVC_ATLASSIAN_API_URL: z.optional(z.url()),
    /**
     * Issue 12: the Google Drive (Google OAuth 2.0 web client)
     * app's client id and secret (docs/connectors.md); both or neither.
     */
    SVC_GOOGLE_DRIVE_CLIENT_ID: z.optional(nonEmpty),
    SVC_GOOGLE_DRIVE_CLIENT_SECRET: z.optional(nonEmpty),
    /** Google's consent, token/revocation and API addresses, for a stand-in (tests); the real ones by default. */
    SVC_GOOGLE_AUTH_URL: z.optional(z.url()),
    SVC_GOOGLE_TOKEN_URL: z.optional(z.url()),
    SVC_GOOGLE_API_URL: z.optional(z.url()),
    /**
     * Issue 12: the SharePoint / OneDrive app (Microsoft Entra
     * app registration) client id and secret; both or neither.
     */
    SVC_SHAREPOINT_CLIENT_ID: z.optional(nonEmpty),
    SVC_SHAREPOINT_CLIENT_SECRET: z.optional(nonEmpty),
    /** The identity platform's authority with its tenant, and Microsoft Graph, for a stand-in (tests) or one tenant. */
    SVC_MICROSOFT_AUTH_URL: z.optional(z.url()),
    SVC_MICROSOFT_GRAPH_URL: z.optional(z.url()),
    /** Issue 12: the Slack app's client id and secret, both or neither; Slack's address for a stand-in. */
    SVC_SLACK_CLIENT_ID: z.optional(nonEmpty),
    SVC_SLACK_CLIENT_SECRET: z.optional(nonEmpty),
    SVC_SLACK_URL: z.optional(z.url()),
    /** A real OpenSearch (plain HTTP) instead of the embedded index (issue 3). */
    OPENSEARCH_URL: z.optional(z.url()),
    /** OpenAI (or a compatible endpoint) instead of the offline embedder and answerer. */
    OPENAI_API_KEY: z.optional(nonEmpty),
    OPENAI_BASE_URL: z.optional(z.url()),
    /**
     * Issue 32: which provider answers and embeds. `bedrock`: Amazon Bedrock
     * with the default AWS credential chain and region (AWS_PROFILE,
     * AWS_ACCESS_KEY_ID…, AWS_REGION); `openai`: OPENAI_API_KEY, which is
     * also what an unset value picks when the key is set; `offline`: the
     * offline models, whatever else is set.
     */
    SVC_MODEL_PROVIDER: z.optional(
      z.enum(['offline', 'openai', 'bedrock'], {
        error: 'must be offline, openai or bedrock',
      }),
    ),
    /** Issue 32: the Bedrock models (the cloud's bedrockAnswerModel… context keys); Bedrock's defaults when unset. */
    SVC_BEDROCK_ANSWER_MODEL: z.optional(bedrockModelId),
    SVC_BEDROCK_EMBEDDING_MODEL: z.optional(
      z.enum(BEDROCK_EMBEDDING_MODEL_IDS, {
        error: `must be one of ${BEDROCK_EMBEDDING_MODEL_IDS.join(', ')}`,
      }),
    ),
    SVC_BEDROCK_EMBEDDING_DIMENSIONS: z.optional(bedrockEmbeddingDimensions),
    /** The AWS SDK's own settings, read here too so that configuration is parsed once. */
    AWS_REGION: z.optional(nonEmpty),
    /** Bedrock Runtime's address: a stand-in (tests) or a VPC endpoint; the region's by default. */
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: z.optional(z.url()),
    /**
     * Where organizations' own OpenAI and Anthropic keys are used
     * and checked, instead of the providers' addresses: local runs and tests
     * (a loopback server speaking the provider's wire format).
     */
    SVC_MODEL_KEY_OPENAI_URL: z.optional(z.url()),
    SVC_MODEL_KEY_ANTHROPIC_URL: z.optional(z.url()),
    /**
     * A file's parsing, or a document's chunking, in the parsing process
     * is stopped after this long and the file refused with the reason.
     */
    SVC_PARSE_TIMEOUT_SECONDS: z._default(
      z.coerce.number().check(z.int(), z.minimum(1), z.maximum(900)),
      120,
    ),
    /** The parsing process's heap; a parser needing more is stopped and the file refused. */
    SVC_PARSE_MEMORY_MB: z._default(
      z.coerce.number().check(z.int(), z.minimum(64), z.maximum(16_384)),
      1_024,
    ),
    /**
     * Response bytes (decoded, MiB) one sync's crawl may read before it
     * stops with the reason; the cloud uses the same default.
     */
    SVC_CRAWL_MAX_MB: z._default(
      z.coerce.number().check(z.int(), z.minimum(1), z.maximum(65_536)),
      1_024,
    ),
    /**
     * How long one sync's crawl may run before it stops with the reason
     * (the cloud's is its worker's 15 minutes less one to finish: 840 s).
     */
    SVC_CRAWL_TIME_LIMIT_SECONDS: z._default(
      z.coerce.number().check(z.int(), z.minimum(1), z.maximum(86_400)),
      840,
    ),
    /** How often the local workers publish outbox events and dispatch deliveries; 0 stops them (tests step them by hand). */
    SVC_WORKER_INTERVAL_MS: milliseconds(0, 60_000, 200),
    /**
     * How often the local scheduler looks for scheduled data sources that
     * are due (the cloud's EventBridge rule runs every 5 minutes); 0 turns it
     * off. Nothing runs while SVC_WORKER_INTERVAL_MS is 0.
     */
    SVC_SCHEDULER_INTERVAL_MS: milliseconds(0, 3_600_000, 60_000),
  })
  .check(
    z.refine(
      (config) => config.SVC_MODEL_PROVIDER !== 'openai' || config.OPENAI_API_KEY !== undefined,
      { path: ['OPENAI_API_KEY'], message: 'SVC_MODEL_PROVIDER=openai needs OPENAI_API_KEY' },
    ),
    z.refine(
      (config) =>
        bedrockDimensionsFit(
          config.SVC_BEDROCK_EMBEDDING_MODEL,
          config.SVC_BEDROCK_EMBEDDING_DIMENSIONS,
        ),
      {
        path: ['SVC_BEDROCK_EMBEDDING_DIMENSIONS'],
        message: 'is not a vector length SVC_BEDROCK_EMBEDDING_MODEL makes',
      },
    ),
    z.refine(
      (config) =>
        (config.SVC_BOOTSTRAP_ADMIN_EMAIL === undefined) ===
        (config.SVC_BOOTSTRAP_ADMIN_PASSWORD === undefined),
      {
        path: ['SVC_BOOTSTRAP_ADMIN_PASSWORD'],
        message: 'SVC_BOOTSTRAP_ADMIN_EMAIL and SVC_BOOTSTRAP_ADMIN_PASSWORD go together',
      },
    ),
    z.refine(
      (config) =>
        (config.SVC_CONFLUENCE_CLIENT_ID === undefined) ===
        (config.SVC_CONFLUENCE_CLIENT_SECRET === undefined),
      {
        path: ['SVC_CONFLUENCE_CLIENT_SECRET'],
        message: 'SVC_CONFLUENCE_CLIENT_ID and SVC_CONFLUENCE_CLIENT_SECRET go together',
      },
    ),
    z.refine(
      (config) =>
        (config.SVC_GOOGLE_DRIVE_CLIENT_ID === undefined) ===
        (config.SVC_GOOGLE_DRIVE_CLIENT_SECRET === undefined),
      {
        path: ['SVC_GOOGLE_DRIVE_CLIENT_SECRET'],
        message: 'SVC_GOOGLE_DRIVE_CLIENT_ID and SVC_GOOGLE_DRIVE_CLIENT_SECRET go together',
      },
    ),
    z.refine(
      (config) =>
        (config.SVC_SHAREPOINT_CLIENT_ID === undefined) ===
        (config.SVC_SHAREPOINT_CLIENT_SECRET === undefined),
      {
        path: ['SVC_SHAREPOINT_CLIENT_SECRET'],
        message: 'SVC_SHAREPOINT_CLIENT_ID and SVC_SHAREPOINT_CLIENT_SECRET go together',
      },
    ),
    z.refine(
      (config) =>
        (config.SVC_SLACK_CLIENT_ID === undefined) ===
        (config.SVC_SLACK_CLIENT_SECRET === undefined),
      {
        path: ['SVC_SLACK_CLIENT_SECRET'],
        message: 'SVC_SLACK_CLIENT_ID and SVC_SLACK_CLIENT_SECRET go together',
      },
    ),
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
