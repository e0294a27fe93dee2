import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { createDocumentClient } from '../../layers/core/adapters/dynamodb/document-client';
import { parseApiKey } from '../../layers/core/domain/api-key';
import { API_KEY_LIMITS } from '../../layers/core/domain/api-key-record';
import { ENVIRONMENTS } from '../../layers/core/domain/environments';
import { AppError } from '../../layers/core/domain/errors';
import { SUBSCRIBABLE_EVENT_NAMES } from '../../layers/core/domain/events';
import { isId } from '../../layers/core/domain/ids';
import { ORGANIZATION_LIMITS } from '../../layers/core/domain/organization';
import { PLANS } from '../../layers/core/domain/plans';
import { SCOPES } from '../../layers/core/domain/scopes';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { startDynalite } from './dynalite-server';
import { type LocalConfig, parseLocalConfig } from './local-config';
import { localDependencies } from './local-dependencies';
import { localOpenAiSettings, localRetrievalIndex } from './local-retrieval';
import { loadOrCreateMasterKey } from './master-key';
import { LOCAL_UPLOAD_PATH } from './upload-endpoint';
import {
  ListenerError,
  startWebhookListener,
  type WebhookListenerOptions,
} from './webhook-listener';

export const USAGE = `Usage: svc <command> [options]

  orgs create --name NAME [--plan free|pro|enterprise] [--json]
  keys create --org ORG_ID --scopes Read,Write,Execute,Admin [--env test|live] [--name NAME] [--json]
  keys list   --org ORG_ID [--json]
  keys revoke --org ORG_ID --key KEY_ID [--json]
  webhooks listen [--key ADMIN_KEY] [--api URL] [--events all|NAME,…] [--port N] [--print-json]
  webhooks listen --secret whsec_… --port N [--print-json]

orgs and keys work against the local service's DynamoDB (127.0.0.1:$SVC_DYNAMODB_PORT,
default 8000) while \`npm start\` runs, or directly on $SVC_DATA_DIR (default .data) when it
does not.

webhooks listen receives deliveries on 127.0.0.1:--port (default: a free port), verifies
both signatures and prints one line each; with --key (or $SVC_API_KEY, an Admin key) it
registers a webhook through the running API (--api, default http://127.0.0.1:$PORT or 3000)
for --events (default all), prints its secret, and deletes it on Ctrl-C. With --secret it
only receives for an existing webhook whose URL names --port. The server must run with
SVC_ALLOW_PRIVATE_URLS=true to deliver to this machine (D35). See docs/webhooks.md.`;

/** A mistake in how the CLI was called: exit code 2 with the usage. */
export class UsageError extends Error {}

export interface CliIo {
  readonly out: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Ends a long-running command (`webhooks listen`); without it, SIGINT or SIGTERM does. */
  readonly signal?: AbortSignal;
}

const orgId = z.string().refine((value) => isId('organization', value), 'must be an org_ id');
const scopes = z
  .string()
  .transform((value) => value.split(',').map((scope) => scope.trim()))
  .pipe(z.array(z.enum(SCOPES)).min(1));

const apiKey = z
  .string()
  .refine((value) => parseApiKey(value).ok, 'must be a well-formed svcsk_ API key');
/** `all` (every subscribable name, D27 aliases included) or a comma list of names. */
const eventNames = z
  .string()
  .transform((value) =>
    value.trim() === 'all'
      ? [...SUBSCRIBABLE_EVENT_NAMES]
      : value
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== ''),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .refine(
            (name) => SUBSCRIBABLE_EVENT_NAMES.includes(name),
            `must be all or names among ${SUBSCRIBABLE_EVENT_NAMES.join(', ')}`,
          ),
      )
      .min(1)
      .refine((names) => new Set(names).size === names.length, 'must not repeat a name'),
  );

const commandSchemas = {
  'orgs create': z.object({
    name: z.string().trim().min(1).max(ORGANIZATION_LIMITS.nameMax),
    plan: z.enum(PLANS).default('free'),
  }),
  'keys create': z.object({
    org: orgId,
    scopes,
    env: z.enum(ENVIRONMENTS).default('test'),
    name: z.string().trim().min(1).max(API_KEY_LIMITS.nameMax).default('CLI key'),
  }),
  'keys list': z.object({ org: orgId }),
  'keys revoke': z.object({
    org: orgId,
    key: z.string().refine((value) => isId('apiKey', value), 'must be a key_ id'),
  }),
  'webhooks listen': z.object({
    key: apiKey.optional(),
    api: z.url({ protocol: /^https?$/ }).optional(),
    events: eventNames.optional(),
    port: z.coerce.number().int().min(0).max(65_535).optional(),
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{20,}={0,2}$/, 'must be a webhook secret (whsec_…)')
      .optional(),
    'print-json': z.boolean().default(false),
  }),
} as const;

type Command = keyof typeof commandSchemas;

/** A command with its validated options, narrowed by `command`. */
export type ParsedCommand = {
  [C in Command]: { command: C; options: z.output<(typeof commandSchemas)[C]>; json: boolean };
}[Command];

/** Parses argv into a command and its validated options. */
export function parseCommand(argv: readonly string[]): ParsedCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      org: { type: 'string' },
      scopes: { type: 'string' },
      env: { type: 'string' },
      key: { type: 'string' },
      api: { type: 'string' },
      events: { type: 'string' },
      port: { type: 'string' },
      secret: { type: 'string' },
      'print-json': { type: 'boolean' },
      json: { type: 'boolean', default: false },
    },
  });
  const command = positionals.join(' ');
  if (!(command in commandSchemas)) throw new UsageError(`Unknown command: ${command || '(none)'}`);
  const { json, ...rest } = values;
  const parsed = commandSchemas[command as Command].safeParse(rest);
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('\n'),
    );
  }
  return { command, options: parsed.data, json: json ?? false } as ParsedCommand;
}

/**
 * Reaches the local DynamoDB: the running server's dynalite if there is one,
 * else the data directory directly (LevelDB allows one process at a time,
 * which is why a running server is reached over HTTP instead).
 */
async function connect(env: NodeJS.ProcessEnv): Promise<{
  deps: Dependencies;
  close: () => Promise<void>;
}> {
  const config = parseLocalConfig(env);
  if (config.SVC_DYNAMODB_PORT !== 0) {
    const endpoint = `http://127.0.0.1:${config.SVC_DYNAMODB_PORT}`;
    const running = createDocumentClient({ endpoint, maxAttempts: 1 });
    try {
      await running.send(new ListTablesCommand({}));
      const client = createDocumentClient({ endpoint });
      running.destroy();
      return { deps: cliDependencies(config, client), close: async () => client.destroy() };
    } catch (error) {
      running.destroy();
      if (!isConnectionRefused(error)) throw error;
    }
  }
  const path = join(config.dataDir, 'dynamodb');
  if (!existsSync(path)) {
    throw new Error(`No local data in ${config.dataDir}: run \`npm start\` once first`);
  }
  const dynamo = await startDynalite({ host: '127.0.0.1', port: 0, path });
  const client: DynamoDBDocumentClient = createDocumentClient({ endpoint: dynamo.endpoint });
  return {
    deps: cliDependencies(config, client),
    close: async () => {
      client.destroy();
      await dynamo.end();
    },
  };
}

/** The server's own wiring, on whichever DynamoDB the CLI reached. */
function cliDependencies(config: LocalConfig, client: DynamoDBDocumentClient): Dependencies {
  return localDependencies({
    client,
    tableName: config.SVC_TABLE_NAME,
    masterKey: masterKeyOf(config),
    retrieval: localRetrievalIndex(config),
    openAi: localOpenAiSettings(config),
    blobDirectory: config.SVC_IN_MEMORY ? null : join(config.dataDir, 'blobs'),
    uploadUrl: () => `http://${config.HOST}:${config.PORT}${LOCAL_UPLOAD_PATH}`,
  }).dependencies;
}

/** The data directory's master key (the CLI seals nothing yet, but its wiring is the server's). */
function masterKeyOf(config: LocalConfig): Buffer {
  return loadOrCreateMasterKey(config.SVC_IN_MEMORY ? null : join(config.dataDir, 'master.key'));
}

/** The SDK wraps socket errors; the code may sit on the error or on its cause. */
function isConnectionRefused(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
    if (current.message.includes('ECONNREFUSED')) return true;
  }
  return false;
}

/** Runs one CLI command; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv[0] === 'help') {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    io.out(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.command === 'webhooks listen') return listen(parsed, io);
  const { deps, close } = await connect(io.env);
  try {
    const result = await execute(deps, parsed);
    io.out(parsed.json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      io.out(`Error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await close();
  }
}

type ListenCommand = Extract<ParsedCommand, { command: 'webhooks listen' }>;

/** The listener's settings: register mode (an Admin key) or secret mode (`--secret` and `--port`). */
export function listenSettings(
  parsed: ListenCommand,
  env: NodeJS.ProcessEnv,
): Omit<WebhookListenerOptions, 'out'> {
  const { key, api, events, port, secret } = parsed.options;
  const printJson = parsed.options['print-json'];
  if (parsed.json) {
    throw new UsageError('webhooks listen has no --json; --print-json prints each body');
  }
  if (secret !== undefined) {
    if (key !== undefined || api !== undefined || events !== undefined) {
      throw new UsageError('--secret only receives: it takes no --key, --api or --events');
    }
    if (!port) {
      throw new UsageError('--secret needs --port N: the port the existing webhook URL names');
    }
    return { mode: { kind: 'secret', secret }, port, printJson };
  }
  const adminKey = key ?? env.SVC_API_KEY;
  if (!adminKey) {
    throw new UsageError(
      'webhooks listen needs --key (an Admin API key) or SVC_API_KEY to register a webhook,\nor --secret whsec_… --port N to receive for an existing one',
    );
  }
  if (!parseApiKey(adminKey).ok) {
    throw new UsageError('SVC_API_KEY: must be a well-formed svcsk_ API key');
  }
  return {
    mode: {
      kind: 'register',
      api: api ?? `http://127.0.0.1:${env.PORT || '3000'}`,
      key: adminKey,
      events: events ?? [...SUBSCRIBABLE_EVENT_NAMES],
    },
    port: port ?? 0,
    printJson,
  };
}

/** `webhooks listen`: runs until `io.signal` aborts or SIGINT/SIGTERM, then deletes its webhook. */
async function listen(parsed: ListenCommand, io: CliIo): Promise<number> {
  let settings: Omit<WebhookListenerOptions, 'out'>;
  try {
    settings = listenSettings(parsed, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.out(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  // Listening for Ctrl-C before registering: a stop during registration still deletes the webhook.
  const stop = stopRequested(io.signal);
  let listener: Awaited<ReturnType<typeof startWebhookListener>>;
  try {
    listener = await startWebhookListener({ ...settings, out: io.out });
  } catch (error) {
    stop.dispose();
    if (error instanceof ListenerError) {
      io.out(`Error: ${error.message}`);
      return 1;
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      io.out(`Error: port ${settings.port} (--port) is in use`);
      return 1;
    }
    throw error;
  }
  await stop.requested;
  try {
    await listener.close();
    return 0;
  } catch (error) {
    if (!(error instanceof ListenerError)) throw error;
    io.out(`Error: ${error.message}`);
    return 1;
  }
}

/**
 * Resolves `requested` when `signal` aborts or, without one, on the first
 * SIGINT or SIGTERM; the handlers are then removed, so a second Ctrl-C ends
 * the process as usual.
 */
function stopRequested(signal: AbortSignal | undefined): {
  requested: Promise<void>;
  dispose: () => void;
} {
  let dispose = () => {};
  const requested = new Promise<void>((resolve) => {
    const stop = () => {
      dispose();
      resolve();
    };
    if (signal) {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', stop, { once: true });
      dispose = () => signal.removeEventListener('abort', stop);
    } else {
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      dispose = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      };
    }
  });
  return { requested, dispose };
}

async function execute(
  deps: Dependencies,
  parsed: Exclude<ParsedCommand, ListenCommand>,
): Promise<{ json: unknown; text: string }> {
  switch (parsed.command) {
    case 'orgs create': {
      const { name, plan } = parsed.options;
      const organization = await createOrganization(deps, { name, plan });
      return {
        json: organization,
        text: `Created organization ${organization.id} (${organization.name}, plan ${organization.plan})`,
      };
    }
    case 'keys create': {
      const input = parsed.options;
      const { record, key } = await createApiKey(deps, {
        orgId: input.org,
        name: input.name,
        scopes: input.scopes,
        environment: input.env,
      });
      return {
        json: {
          id: record.id,
          key,
          org_id: record.org_id,
          name: record.name,
          scopes: record.scopes,
          environment: record.environment,
          created_at: record.created_at,
        },
        text: `Created ${record.environment} key ${record.id} (${record.scopes.join(', ')}). It is shown only this once:\n\n  ${key}\n`,
      };
    }
    case 'keys list': {
      const { org } = parsed.options;
      const keys = await listApiKeys(deps, org);
      return {
        json: { keys },
        text:
          keys.length === 0
            ? `No keys in ${org}`
            : keys
                .map(
                  (k) =>
                    `${k.id}  ${k.environment}  …${k.last4}  ${k.scopes.join(',')}  ${k.name}  ${k.created_at}`,
                )
                .join('\n'),
      };
    }
    case 'keys revoke': {
      const { org, key } = parsed.options;
      await revokeApiKey(deps, org, key);
      return { json: { id: key, revoked: true }, text: `Revoked ${key}` };
    }
  }
}
