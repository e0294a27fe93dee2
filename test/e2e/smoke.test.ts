import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';

describe('Local runtime: smoke', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  it('serves an empty agent list to the bootstrap key', async () => {
    const response = await api(service.url, '/api/v1/agents', { key: service.adminKey });
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({ agents: [], total: 0, limit: 50, offset: 0 });
  });
});
