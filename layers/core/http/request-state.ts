import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ScopeBucketReport } from '../domain/gcra';
import type { Principal } from '../domain/principal';
import type { IssuedSession } from '../use-cases/auth/sessions';
import type { Route } from './route';

/** What the middlewares learn about a request, in the order they learn it. */
export interface RequestState {
  readonly requestId: string;
  readonly startedAt: number;
  /** Which error shape the path family answers in. */
  readonly errorShape: 'nested' | 'flat';
  /**
   * The address the request is judged by: API Gateway's
   * `sourceIp`, or the viewer's behind the console's distribution (* the clientAddress middleware).
   */
  sourceIp: string;
  route: Route | null;
  params: Record<string, string>;
  principal: Principal | null;
  rateLimit: ScopeBucketReport | null;
  /** The parsed JSON body; `undefined` when the request had none. */
  body: unknown;
  /** The token continuing the request's session, re-issued by authentication. */
  session: IssuedSession | null;
  /** A `Set-Cookie` for the response unless the operation sets its own (the continued session, or a clearing). */
  setCookie: string | null;
}

export type HttpContext = Context & { svc: RequestState };
export type HttpRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;
export type HttpMiddleware = MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  HttpContext
>;

/** Case-insensitive header lookup: API Gateway passes header names as the client sent them. */
export function headerValue(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
