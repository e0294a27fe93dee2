import { contractViolations, type Exchange } from '../../support/openapi-contract';

const AGENT = {
  id: 'agt_01jd0000000000000000000000',
  name: 'Support',
  system_prompt: null,
  rag_strategy: 'hybrid',
  model: 'offline-extractive',
  temperature: 0.2,
  max_tokens: 1024,
  data_source_ids: [],
  model_key_id: null,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

const exchange = (overrides: Partial<Exchange> & { body?: unknown }): Exchange => {
  const { body, ...rest } = overrides;
  return {
    method: 'GET',
    path: '/api/v1/agents/agt_01jd0000000000000000000000',
    status: 200,
    headers: new Headers({ 'content-type': 'application/json' }),
    text: JSON.stringify(body ?? AGENT),
    ...rest,
  };
};

describe('The contract check of answers against docs/openapi.json', () => {
  it('accepts an answer as documented', () => {
    expect(contractViolations(exchange({}))).toEqual([]);
  });

  it('names a status the operation does not document', () => {
    expect(contractViolations(exchange({ status: 418 }))).toEqual([
      expect.stringContaining('answered 418, which the document does not list'),
    ]);
  });

  it('names a body that does not match its schema, and where', () => {
    const violations = contractViolations(exchange({ body: { ...AGENT, max_tokens: 'many' } }));
    expect(violations).toEqual([expect.stringContaining('body at /max_tokens must be integer')]);
  });

  it('names a content type the document does not give for the status', () => {
    const html = exchange({ headers: new Headers({ 'content-type': 'text/html' }), text: '<p>' });
    expect(contractViolations(html)).toEqual([
      expect.stringContaining('a text/html where the document gives application/json'),
    ]);
  });

  it('holds an error body to the schema of its status', () => {
    const notFound = exchange({
      status: 404,
      body: { error: { code: 'forbidden', message: 'No', details: {} }, request_id: 'req_1' },
    });
    expect(contractViolations(notFound).join('\n')).toContain('/error/code');
  });

  it('holds each event of a stream to its event schema', () => {
    const stream = exchange({
      method: 'POST',
      path: '/api/v1/query',
      headers: new Headers({ 'content-type': 'text/event-stream; charset=utf-8' }),
      text: ': keep-alive\n\nevent: delta\ndata: {"text":"Hi"}\n\nevent: delta\ndata: {"txt":1}\n\n',
    });
    expect(contractViolations(stream)).toEqual(
      expect.arrayContaining([expect.stringContaining('event 1 (delta)')]),
    );
    expect(contractViolations(stream).join('\n')).not.toContain('event 0');
  });

  it('leaves alone what no documented route answers: other paths, methods a path does not serve', () => {
    expect(contractViolations(exchange({ path: '/api/v1/nowhere', status: 404 }))).toEqual([]);
    expect(contractViolations(exchange({ method: 'PATCH', status: 405 }))).toEqual([]);
    expect(contractViolations(exchange({ path: '/api/ai-agent-managers', status: 599 }))).toEqual(
      [],
    );
  });
});
