import { errorShapeForPath, matchRoute } from '../../../layers/core/http/route';
import { ROUTES } from '../../../layers/core/http/routes/route-table';

describe('HTTP: route matching', () => {
  it('matches a parameterised path and decodes its parameters', () => {
    const { match } = matchRoute(ROUTES, 'GET', '/api/v1/agents/agt_abc');
    expect(match?.route.operation).toBe('getAgent');
    expect(match?.params).toEqual({ id: 'agt_abc' });
  });

  it('ignores one trailing slash', () => {
    expect(matchRoute(ROUTES, 'GET', '/api/v1/agents/').match?.route.operation).toBe('listAgents');
  });

  it('lists the allowed methods of a path that exists with other methods', () => {
    const result = matchRoute(ROUTES, 'PATCH', '/api/v1/agents/agt_abc');
    expect(result.match).toBeNull();
    expect(result.allowedMethods.sort()).toEqual(['DELETE', 'GET', 'PUT']);
  });

  it('picks the literal resource over a parameter beside it, whatever the table order, as API Gateway does (P240)', () => {
    const reversed = [...ROUTES].reverse();
    for (const routes of [ROUTES, reversed]) {
      expect(matchRoute(routes, 'GET', '/api/v1/webhooks/source-ips').match?.route.operation).toBe(
        'getWebhookSourceIps',
      );
      // Its other methods are its own (405, Allow: GET), not those of /api/v1/webhooks/{id}.
      expect(matchRoute(routes, 'PUT', '/api/v1/webhooks/source-ips')).toEqual({
        match: null,
        allowedMethods: ['GET'],
      });
      expect(matchRoute(routes, 'PUT', '/api/v1/webhooks/wh_abc').match?.route.operation).toBe(
        'updateWebhook',
      );
    }
  });

  it('matches nothing for unknown paths or empty parameters', () => {
    expect(matchRoute(ROUTES, 'GET', '/api/v2/agents')).toEqual({
      match: null,
      allowedMethods: [],
    });
    expect(matchRoute(ROUTES, 'GET', '/api/v1/agents//status').match).toBeNull();
  });

  it('matches a segment that does not percent-decode, raw, for the id check to refuse (D1)', () => {
    expect(matchRoute(ROUTES, 'GET', '/api/v1/agents/%E0%A4%A').match?.params).toEqual({
      id: '%E0%A4%A',
    });
  });

  it('answers v1 and unknown versions nested, legacy flat (D5)', () => {
    expect(errorShapeForPath('/api/v1/agents')).toBe('nested');
    expect(errorShapeForPath('/api/v2/agents')).toBe('nested');
    expect(errorShapeForPath('/somewhere')).toBe('nested');
    expect(errorShapeForPath('/api/ai-agent-managers')).toBe('flat');
    expect(errorShapeForPath('/api/chat')).toBe('flat');
  });
});
