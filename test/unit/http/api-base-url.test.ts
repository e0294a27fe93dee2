import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiBaseUrlOf } from '../../../layers/core/http/api-base-url';

const eventAt = (domainName: string | undefined, requestPath: string, path: string) =>
  ({ path, requestContext: { domainName, path: requestPath } }) as unknown as APIGatewayProxyEvent;

describe('Function: apiBaseUrlOf (P91: SSO callbacks in the cloud)', () => {
  it('keeps the stage of an execute-api URL', () => {
    const event = eventAt(
      'abc123.execute-api.eu-west-1.amazonaws.com',
      '/live/api/v1/sso/start',
      '/api/v1/sso/start',
    );

    expect(apiBaseUrlOf(event)).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/live');
  });

  it('gives a custom domain without a base path as is', () => {
    const event = eventAt('api.example.com', '/api/v1/sso/start', '/api/v1/sso/start');

    expect(apiBaseUrlOf(event)).toBe('https://api.example.com');
  });

  it('says nothing without a domain name (the local gateway knows its own address)', () => {
    expect(apiBaseUrlOf(eventAt(undefined, '/local/api/v1/sso/start', '/api/v1/sso/start'))).toBe(
      undefined,
    );
  });
});
