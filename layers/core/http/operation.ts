import type { APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import type { IdKind } from '../domain/ids';
import type { Principal } from '../domain/principal';
import type { Route } from './route';

export interface OperationInput<Query, Body, Deps> {
  readonly query: Query;
  readonly body: Body;
  readonly params: Record<string, string>;
  readonly principal: Principal;
  readonly route: Route;
  /** What the function's composition root built (functions/<family>/wiring.ts). */
  readonly deps: Deps;
  /** D6: this request's id, for errors reported inside a stream. */
  readonly requestId: string;
}

/**
 * One endpoint's edge: its query and body schemas (zod, reused for the
 * OpenAPI document), the ids its path carries, and the call into a use case.
 */
export interface Operation<
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  Deps = never,
> {
  readonly summary: string;
  readonly query: Q;
  readonly body: B;
  readonly pathIds: Record<string, IdKind>;
  /** The success status and body for the OpenAPI document. */
  readonly responses: Record<number, { description: string; schema?: z.ZodType }>;
  handle(input: OperationInput<z.output<Q>, z.output<B>, Deps>): Promise<APIGatewayProxyResult>;
}

/** No query parameters at all. */
export const NO_QUERY = z.strictObject({});
/** No body, or an empty JSON object. */
export const NO_BODY = z.strictObject({}).optional();

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
    Q extends z.ZodType = typeof NO_QUERY,
    B extends z.ZodType = typeof NO_BODY,
  >(spec: {
    summary: string;
    query?: Q;
    body?: B;
    pathIds?: Record<string, IdKind>;
    responses: Record<number, { description: string; schema?: z.ZodType }>;
    handle(input: OperationInput<z.output<Q>, z.output<B>, Deps>): Promise<APIGatewayProxyResult>;
  }): Operation<Q, B, Deps> {
    return {
      summary: spec.summary,
      query: (spec.query ?? NO_QUERY) as Q,
      body: (spec.body ?? NO_BODY) as B,
      pathIds: spec.pathIds ?? {},
      responses: spec.responses,
      handle: spec.handle,
    };
  };
}
