import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import ipaddr from 'ipaddr.js';
import * as z from 'zod/mini';
import { ConflictError } from '../../layers/core/domain/errors';
import { PASSWORD_POLICY } from '../../layers/core/domain/password';
import { USER_LIMITS } from '../../layers/core/domain/user';
import { httpFunction } from '../../layers/core/http/http-function';
import { publicOperationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import type { Route } from '../../layers/core/http/route';
import { withNewSession } from '../../layers/core/http/session-response';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import { startSession } from '../../layers/core/use-cases/auth/sessions';
import { createUser } from '../../layers/core/use-cases/users/user-use-cases';
import { asProxyHandler } from './functions';
import type { ProxyHandler } from './gateway';

/**
 * The first administrator, made from the console on the machine itself.
 * A newcomer who started without SVC_BOOTSTRAP_ADMIN_EMAIL opens the console
 * and, while the bootstrap organization has no user, gets a one-time
 * "Create the administrator" page. These two routes exist only in the local
 * runtime: they are not rows of layers/core/http/routes/route-table.ts, so no Lambda, API Gateway
 * resource or docs/openapi.json entry has them (in the cloud the operator
 * CLI makes the first administrator).
 */
const FAMILY = 'local-setup';

export const FIRST_ADMINISTRATOR_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/setup',
    family: FAMILY,
    operation: 'getSetup',
    access: 'public',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/setup/administrator',
    family: FAMILY,
    operation: 'createAdministrator',
    access: 'public',
    api: 'v1',
  },
];

const administratorBody = z.strictObject({
  email: z.pipe(
    z.string().check(z.trim(), z.maxLength(USER_LIMITS.emailMax)),
    z.email('must be an email address'),
  ),
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(USER_LIMITS.nameMax)),
  password: z
    .string()
    .check(z.minLength(PASSWORD_POLICY.minLength), z.maxLength(PASSWORD_POLICY.maxLength)),
});

/** Claimed once, before the administrator is made: two pages submitted at once make one user. */
const CLAIM_KEY = { PK: 'SYSTEM', SK: 'FIRST_ADMINISTRATOR' } as const;

interface FirstAdministratorOptions {
  readonly deps: Dependencies;
  readonly orgId: string;
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** What answers a path that does not exist (functions/fallback): the answer to anyone else. */
  readonly fallback: ProxyHandler;
}

/**
 * The `local-setup` function: `GET /api/v1/setup` says whether the page is
 * offered, `POST /api/v1/setup/administrator {email, name, password}` makes
 * an active `admin` of the bootstrap organization and signs them in (the
 * session cookie and CSRF token, as sign-in answers).
 *
 * Only for the machine itself: a request whose TCP peer is not a loopback
 * address (the socket's, never X-Forwarded-For), or whose `Host` does not
 * name loopback (a DNS-rebinding page reaching 127.0.0.1 under its own name),
 * gets the 404 an unknown path gets. Once any user exists, `GET` says
 * `available: false` and `POST` is a 409.
 */
export function firstAdministratorFunction(options: FirstAdministratorOptions): ProxyHandler {
  const { deps, orgId } = options;
  const hasNoUser = async () => (await deps.users.list(orgId, { limit: 1, offset: 0 })).total === 0;
  const claim = async (): Promise<boolean> => {
    try {
      await options.client.send(
        new PutCommand({
          TableName: options.tableName,
          Item: { ...CLAIM_KEY, org_id: orgId, at: deps.clock.now().toISOString() },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  };
  const release = () =>
    options.client.send(new DeleteCommand({ TableName: options.tableName, Key: CLAIM_KEY }));
  const alreadySetUp = () =>
    new ConflictError('The administrator exists already: sign in instead', {
      reason: 'administrator_exists',
    });

  const publicOperation = publicOperationsWith<Dependencies>();
  const handler = httpFunction({
    family: FAMILY,
    routes: FIRST_ADMINISTRATOR_ROUTES,
    dependencies: () => deps,
    operations: {
      getSetup: publicOperation({
        summary: 'Whether the console offers to create the first administrator (this machine only)',
        responses: { 200: { description: '`available`: no user exists yet' } },
        handle: async () => jsonResponse(200, { available: await hasNoUser() }),
      }),
      createAdministrator: publicOperation({
        summary: 'Create the first administrator and sign in (this machine only, once)',
        body: administratorBody,
        responses: {
          200: { description: 'Created and signed in: the session, as sign-in answers it' },
          409: { description: 'A user exists already' },
        },
        async handle({ body }) {
          if (!(await hasNoUser()) || !(await claim())) throw alreadySetUp();
          let created: Awaited<ReturnType<typeof createUser>>;
          try {
            created = await createUser(deps, orgId, { ...body, role: 'admin' });
          } catch (error) {
            await release();
            throw error;
          }
          const session = await startSession(deps, orgId, created.user.id);
          return withNewSession(orgId, created.user, session);
        },
      }),
    },
  });
  const local = asProxyHandler(handler);
  return (event, context) =>
    isFromThisMachine(event) ? local(event, context) : options.fallback(event, context);
}

/** The TCP peer (as the local gateway reports it) and the `Host` the browser used are both loopback. */
export function isFromThisMachine(event: APIGatewayProxyEvent): boolean {
  return (
    isLoopbackAddress(event.requestContext?.identity?.sourceIp) && isLoopbackHost(hostOf(event))
  );
}

function hostOf(event: APIGatewayProxyEvent): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'host');
  return entry?.[1];
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'loopback';
}

function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (hostname === 'localhost') return true;
  return isLoopbackAddress(hostname.replace(/^\[(.*)\]$/, '$1'));
}
