import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { parseApiKey } from '../../layers/core/domain/api-key';
import { API_KEY_LIMITS } from '../../layers/core/domain/api-key-record';
import { ENVIRONMENTS, type Environment } from '../../layers/core/domain/environments';
import { AppError } from '../../layers/core/domain/errors';
import { SUBSCRIBABLE_EVENT_NAMES } from '../../layers/core/domain/events';
import { isId } from '../../layers/core/domain/ids';
import { ORGANIZATION_LIMITS } from '../../layers/core/domain/organization';
import { PLANS } from '../../layers/core/domain/plans';
import { SCOPES } from '../../layers/core/domain/scopes';
import { ROLES, USER_LIMITS } from '../../layers/core/domain/user';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { operatorUpdateOrganization } from '../../layers/core/use-cases/organizations/organization-settings';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { createUser, listUsers } from '../../layers/core/use-cases/users/user-use-cases';
import '../../layers/core/zod-english';
import { INVITATION_ACCEPT_PATH } from '../../layers/core/http/routes/route-table';
import packageJson from '../../package.json';
import type { AdminDependencies, AdminTarget } from '../admin-cli/admin-target';
import { CliError, EnvironmentMismatchError } from '../admin-cli/cli-errors';
import { helpFor, USAGE } from '../admin-cli/help';
import type { WebhookListenerOptions } from './webhook-listener';

export { USAGE };

/** A mistake in how the CLI was called: exit code 2 with the usage. */
export class UsageError extends Error {}

export interface CliIo {
  readonly out: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Ends a long-running command (`webhooks listen`); without it, SIGINT or SIGTERM does. */
  readonly signal?: AbortSignal;
  /** Standard input, read whole (`users create --password-stdin`). */
  readonly readStdin?: () => Promise<string>;
}

const orgId = z
  .string()
  .check(z.refine((value) => isId('organization', value), 'must be an org_ id'));
const scopes = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value: string) => value.split(',').map((scope) => scope.trim())),
  ),
  z.array(z.enum(SCOPES)).check(z.minLength(1)),
);

const apiKey = z
  .string()
  .check(z.refine((value) => parseApiKey(value).ok, 'must be a well-formed svcsk_ API key'));
/** `all` (every subscribable name, event aliases included) or a comma list of names. */
const eventNames = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value: string) =>
      value.trim() === 'all'
        ? [...SUBSCRIBABLE_EVENT_NAMES]
        : value
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name !== ''),
    ),
  ),
  z
    .array(
      z
        .string()
        .check(
          z.refine(
            (name) => SUBSCRIBABLE_EVENT_NAMES.includes(name),
            `must be all or names among ${SUBSCRIBABLE_EVENT_NAMES.join(', ')}`,
          ),
        ),
    )
    .check(
      z.minLength(1),
      z.refine((names) => new Set(names).size === names.length, 'must not repeat a name'),
    ),
);

/** Trimmed, 1 to `max` characters. */
const trimmedName = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

const commandSchemas = {
  'orgs create': z.object({
    name: trimmedName(ORGANIZATION_LIMITS.nameMax),
    plan: z._default(z.enum(PLANS), 'free'),
  }),
  'orgs list': z.object({}),
  'orgs update': z
    .object({
      org: orgId,
      name: z.optional(trimmedName(ORGANIZATION_LIMITS.nameMax)),
      plan: z.optional(z.enum(PLANS)),
      'clear-ip-allowlist': z._default(z.boolean(), false),
    })
    .check(
      z.refine(
        (options) =>
          options.name !== undefined || options.plan !== undefined || options['clear-ip-allowlist'],
        'give at least one of --name, --plan, --clear-ip-allowlist',
      ),
    ),
  'keys create': z.object({
    org: orgId,
    scopes,
    // Unset: the target's environment (a stack's tag; `test` locally).
    env: z.optional(z.enum(ENVIRONMENTS)),
    name: z._default(trimmedName(API_KEY_LIMITS.nameMax), 'CLI key'),
  }),
  'keys list': z.object({ org: orgId }),
  'keys revoke': z.object({
    org: orgId,
    key: z.string().check(z.refine((value) => isId('apiKey', value), 'must be a key_ id')),
  }),
  'users create': z.object({
    org: orgId,
    email: z.pipe(
      z.string().check(z.trim(), z.maxLength(USER_LIMITS.emailMax)),
      z.email('must be an email address'),
    ),
    name: z.optional(trimmedName(USER_LIMITS.nameMax)),
    role: z._default(z.enum(ROLES), 'admin'),
    'password-stdin': z._default(z.boolean(), false),
  }),
  'users list': z.object({ org: orgId }),
  'webhooks listen': z.object({
    key: z.optional(apiKey),
    api: z.optional(z.url({ protocol: /^https?$/ })),
    events: z.optional(eventNames),
    port: z.optional(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65_535))),
    secret: z.optional(
      z
        .string()
        .check(z.regex(/^whsec_[A-Za-z0-9+/]{20,}={0,2}$/, 'must be a webhook secret (whsec_…)')),
    ),
    'print-json': z._default(z.boolean(), false),
  }),
} as const;

type Command = keyof typeof commandSchemas;

/** Where `orgs` and `keys` commands work: the local service unless `--stack` names a deployment. */
export interface CommandTarget {
  readonly stack?: string | undefined;
  readonly region?: string | undefined;
}

/** A command with its validated options, narrowed by `command`. */
export type ParsedCommand = {
  [C in Command]: {
    command: C;
    options: z.output<(typeof commandSchemas)[C]>;
    json: boolean;
    target: CommandTarget;
  };
}[Command];

const stackName = z.optional(
  z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'must be a CloudFormation stack name')),
);
const regionName = z.optional(
  z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1')),
);

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
      email: { type: 'string' },
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'clear-ip-allowlist': { type: 'boolean' },
      json: { type: 'boolean', default: false },
      stack: { type: 'string' },
      region: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  if (!(command in commandSchemas)) throw new UsageError(`Unknown command: ${command || '(none)'}`);
  const { json, stack, region, ...rest } = values;
  const target = z.object({ stack: stackName, region: regionName }).safeParse({ stack, region });
  if (!target.success) {
    throw new UsageError(
      target.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('\n'),
    );
  }
  if (target.data.region !== undefined && target.data.stack === undefined) {
    throw new UsageError("--region goes with --stack: it is the deployed stack's region");
  }
  if (command === 'webhooks listen' && target.data.stack !== undefined) {
    throw new UsageError('webhooks listen works on this machine only; it takes no --stack');
  }
  const parsed = commandSchemas[command as Command].safeParse(rest);
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('\n'),
    );
  }
  return {
    command,
    options: parsed.data,
    json: json ?? false,
    target: target.data,
  } as ParsedCommand;
}

/** Runs one CLI command; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.out(USAGE);
    return 2;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(packageJson.version);
    return 0;
  }
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    const words = argv.filter((word) => !word.startsWith('-') && word !== 'help');
    io.out(helpFor(words));
    return 0;
  }
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    io.out(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.command === 'webhooks listen') return listen(parsed, io);
  let target: AdminTarget | undefined;
  try {
    // Each target is loaded when used: the AWS SDK's CloudFormation client, dynalite
    // and the listener take longer to load than most commands take to run.
    target = parsed.target.stack
      ? await (await import('../admin-cli/stack-target')).connectToStack({
          stackName: parsed.target.stack,
          region: parsed.target.region,
        })
      : await (await import('./local-admin-target')).connectToLocalService(io.env);
    const result = await execute(target, parsed, io);
    io.out(parsed.json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (error) {
    if (error instanceof AppError || error instanceof CliError) {
      io.out(`Error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await target?.close();
  }
}

/**
 * A key's environment. A stack's keys are of the stack's environment:
 * a `live` deployment refuses `test` keys, so making one there would only
 * hand out a key that never works.
 */
function keyEnvironment(target: AdminTarget, requested: Environment | undefined): Environment {
  if (target.environment === null) return requested ?? 'test';
  if (requested !== undefined && requested !== target.environment) {
    throw new EnvironmentMismatchError(
      `--env ${requested} contradicts the stack, a ${target.environment} deployment that accepts only ${target.environment} keys; leave --env out`,
    );
  }
  return target.environment;
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
  const { ListenerError, startWebhookListener } = await import('./webhook-listener');
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

/** Where an invitation is accepted: the local service's address, or the path on a stack's ApiUrl. */
function acceptUrl(target: AdminTarget, env: NodeJS.ProcessEnv): string {
  const path = INVITATION_ACCEPT_PATH;
  return target.environment === null ? `http://127.0.0.1:${env.PORT || '3000'}${path}` : path;
}

async function execute(
  target: AdminTarget,
  parsed: Exclude<ParsedCommand, ListenCommand>,
  io: CliIo,
): Promise<{ json: unknown; text: string }> {
  const deps: AdminDependencies = target.deps;
  switch (parsed.command) {
    case 'orgs create': {
      const { name, plan } = parsed.options;
      const organization = await createOrganization(deps, { name, plan });
      return {
        json: organization,
        text: `Created organization ${organization.id} (${organization.name}, plan ${organization.plan})`,
      };
    }
    case 'orgs list': {
      const organizations = await deps.listOrganizations();
      return {
        json: { organizations },
        text:
          organizations.length === 0
            ? 'No organizations'
            : organizations.map((o) => `${o.id}  ${o.plan}  ${o.created_at}  ${o.name}`).join('\n'),
      };
    }
    case 'orgs update': {
      const { org, name, plan } = parsed.options;
      const organization = await operatorUpdateOrganization(deps, org, {
        name,
        plan,
        clearIpAllowlist: parsed.options['clear-ip-allowlist'],
      });
      const allowlist = organization.settings?.ip_allowlist ?? [];
      return {
        json: organization,
        text: `Updated organization ${organization.id} (${organization.name}, plan ${organization.plan}, IP allowlist ${allowlist.length === 0 ? 'off' : allowlist.join(' ')})`,
      };
    }
    case 'keys create': {
      const input = parsed.options;
      const { record, key } = await createApiKey(deps, {
        orgId: input.org,
        name: input.name,
        scopes: input.scopes,
        environment: keyEnvironment(target, input.env),
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
    case 'users create': {
      const input = parsed.options;
      let password: string | undefined;
      if (input['password-stdin']) {
        if (!io.readStdin) throw new CliError('--password-stdin needs standard input');
        // One line: the trailing newline of `echo` or a here-string is not part of it.
        password = (await io.readStdin()).replace(/\r?\n$/, '');
      }
      const { user, invitation } = await createUser(deps, input.org, {
        email: input.email,
        name: input.name ?? input.email.split('@')[0] ?? input.email,
        role: input.role,
        password,
      });
      const url = acceptUrl(target, io.env);
      const json = {
        ...user,
        org_id: input.org,
        ...(invitation
          ? {
              invitation: {
                token: invitation.token,
                expires_at: invitation.expiresAt,
                accept_path: INVITATION_ACCEPT_PATH,
              },
            }
          : {}),
      };
      if (!invitation) {
        return {
          json,
          text: `Created ${user.role} ${user.id} (${user.email}) in ${input.org}, active with the password given; sign in at ${url.replace(INVITATION_ACCEPT_PATH, '/api/v1/auth/login')}`,
        };
      }
      return {
        json,
        text: [
          `Created ${user.role} ${user.id} (${user.email}) in ${input.org}, invited. The invitation is shown only this once, valid until ${invitation.expiresAt}:`,
          '',
          `  ${invitation.token}`,
          '',
          `To accept it, set a password (at least 12 characters)${target.environment === null ? '' : " on the stack's ApiUrl"}:`,
          `  curl -s -c cookies.txt -X POST ${url} -H 'Content-Type: application/json' -d '{"token":"${invitation.token}","password":"…"}'`,
          '',
        ].join('\n'),
      };
    }
    case 'users list': {
      const { org } = parsed.options;
      const { items } = await listUsers(deps, org, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
      return {
        json: { users: items.map((user) => ({ ...user, org_id: org })) },
        text:
          items.length === 0
            ? `No users in ${org}`
            : items.map((u) => `${u.id}  ${u.role}  ${u.status}  ${u.email}  ${u.name}`).join('\n'),
      };
    }
    case 'keys revoke': {
      const { org, key } = parsed.options;
      await revokeApiKey(deps, org, key);
      return { json: { id: key, revoked: true }, text: `Revoked ${key}` };
    }
  }
}
