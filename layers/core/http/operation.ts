import type { APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import type { IdKind } from '../domain/ids';
import type { Principal } from '../domain/principal';
import type { IssuedSession } from '../use-cases/auth/sessions';
import type { Route } from './route';

/** Where a request came from, for the operations that sign people in or set the IP allowlist. */
export interface RequestClient {
  /**
   * The address API Gateway saw, or the viewer's behind the console's
   * distribution: the per-address throttle, the own-address check.
   */
  readonly sourceIp: string;
  /** The `svc_session` cookie as sent, if any (login rotates it). */
  readonly sessionToken: string | undefined;
  /** Any cookie the request carries (SSO and connector sign-ins: the browser binding, P90, P215). */
  cookie(name: string): string | undefined;
  /** A request header, case-insensitive (`Accept` picks JSON over a redirect). */
  header(name: string): string | undefined;
  /**
   * The API's public address as API Gateway was reached (`https://<domain>`
   * plus the stage or base path), for links back to it such as SSO
   * callbacks; undefined when the request does not say (the local gateway).
   */
  readonly apiBaseUrl: string | undefined;
}

export interface OperationInput<Query, Body, Deps, P = Principal> {
  readonly query: Query;
  readonly body: Body;
  readonly params: Record<string, string>;
  /** Who is calling; `null` on public routes (signing in). */
  readonly principal: P;
  readonly client: RequestClient;
  /** For a session request, the token that continues it (already set as the response's cookie). */
  readonly session: IssuedSession | null;
  readonly route: Route;
  /** What the function's composition root built (functions/<family>/wiring.ts). */
  readonly deps: Deps;
  /** This request's id, for errors reported inside a stream. */
  readonly requestId: string;
}

/** One answer an operation documents. */
export interface OperationResponse {
  readonly description: string;
  /** The JSON body, when the answer has one. */
  readonly schema?: z.core.$ZodType;
  /** A body that is not JSON (an HTML page for a browser, SAML metadata); `schema` is then unused. */
  readonly contentType?: string;
  /**
   * A `text/event-stream` answer the operation can give instead of JSON:
   * each event's name and the JSON object its `data` line carries.
   */
  readonly events?: Readonly<Record<string, z.core.$ZodType>>;
}

/**
 * One endpoint's edge: its query and body schemas (zod/mini; reused
 * for the OpenAPI document; any zod schema type checks), the ids its path carries, and the call into a use case.
 */
export interface Operation<
  Q extends z.core.$ZodType = z.core.$ZodType,
  B extends z.core.$ZodType = z.core.$ZodType,
  Deps = never,
> {
  readonly summary: string;
  readonly query: Q;
  readonly body: B;
  readonly pathIds: Record<string, IdKind>;
  /** The statuses this operation answers itself (beyond every route's errors), for the OpenAPI document. */
  readonly responses: Record<number, OperationResponse>;
  /** Served without a credential (its routes have `access: 'public'`): `principal` is null. */
  readonly public: boolean;
  handle(
    input: OperationInput<z.output<Q>, z.output<B>, Deps, Principal | null>,
  ): Promise<APIGatewayProxyResult>;
}

/** No query parameters at all. */
export const NO_QUERY = z.strictObject({});
/** No body, or an empty JSON object. */
export const NO_BODY = z.optional(z.strictObject({}));

/**
 * The operation declarer of a family whose composition root builds `Deps`:
 * each operation's `handle` receives exactly those.
 *
 * @example
 * const operation = operationsWith<AgentsDependencies>();
 * export const operations = { getAgent: operation({ summary: 'Get an agent', … }) };
 */
export function operationsWith<Deps>() {
  /** Declares an operation; omitted schemas default to "nothing accepted". */
  return function operation<
    Q extends z.core.$ZodType = typeof NO_QUERY,
    B extends z.core.$ZodType = typeof NO_BODY,
  >(spec: {
    summary: string;
    query?: Q;
    body?: B;
    pathIds?: Record<string, IdKind>;
    responses: Record<number, OperationResponse>;
    handle(input: OperationInput<z.output<Q>, z.output<B>, Deps>): Promise<APIGatewayProxyResult>;
  }): Operation<Q, B, Deps> {
    return {
      summary: spec.summary,
      query: (spec.query ?? NO_QUERY) as Q,
      body: (spec.body ?? NO_BODY) as B,
      pathIds: spec.pathIds ?? {},
      responses: spec.responses,
      public: false,
      handle: (input) => {
        if (!input.principal) throw new Error(`${spec.summary}: reached without a principal`);
        return spec.handle({ ...input, principal: input.principal });
      },
    };
  };
}

/**
 * The declarer of a family's public operations (signing in): like
 * `operationsWith`, but `principal` is always null. Their routes must say
 * `access: 'public'` (httpFunction checks).
 */
export function publicOperationsWith<Deps>() {
  return function publicOperation<
    Q extends z.core.$ZodType = typeof NO_QUERY,
    B extends z.core.$ZodType = typeof NO_BODY,
  >(spec: {
    summary: string;
    query?: Q;
    body?: B;
    pathIds?: Record<string, IdKind>;
    responses: Record<number, OperationResponse>;
    handle(
      input: OperationInput<z.output<Q>, z.output<B>, Deps, null>,
    ): Promise<APIGatewayProxyResult>;
  }): Operation<Q, B, Deps> {
    return {
      summary: spec.summary,
      query: (spec.query ?? NO_QUERY) as Q,
      body: (spec.body ?? NO_BODY) as B,
      pathIds: spec.pathIds ?? {},
      responses: spec.responses,
      public: true,
      handle: (input) => spec.handle({ ...input, principal: null }),
    };
  };
}
