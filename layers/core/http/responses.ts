import type { APIGatewayProxyResult } from 'aws-lambda';

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  };
}

/** 204 and the like: no body, no content type. */
export function emptyResponse(statusCode: number): APIGatewayProxyResult {
  return { statusCode, headers: {}, body: '' };
}
