import OpenAI from 'openai';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const WARRANTY_QUESTION = 'How long is the warranty on a widget?';

interface Source {
  readonly number: number;
  readonly document_title: string;
  readonly document_url: string | null;
  readonly chunk_text: string;
}

/**
 * OpenAI-compatible chat completions under /api/v1/openai, driven by the
 * `openai` npm package as any client would (baseURL = the prefix, apiKey =
 * an API key): agents listed as models, a cited answer plainly and
 * streamed, history from earlier messages, and OpenAI's error shapes.
 */
describe('OpenAI-compatible chat completions', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let agentId: string;
  let key: TestKey;
  let openai: OpenAI;

  const clientWith = (apiKey: string) =>
    new OpenAI({ baseURL: `${service.url}/api/v1/openai`, apiKey, maxRetries: 0 });

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    site = await startLoopbackSite(helpCenterPages);
    const sourceId = (await indexWebsite(service, service.adminKey, site.url('/'), 'Help')).source
      .id;
    const created = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Help desk', data_source_ids: [sourceId] },
    });
    expect(created.status).toBe(201);
    agentId = json(created).id;
    key = await createKey(service, service.orgId, { scopes: ['Execute'] });
    openai = clientWith(key.key);
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('lists the agents the key may use as models (agent id = model id)', async () => {
    const models = [];
    for await (const model of openai.models.list()) models.push(model);

    expect(models).toEqual([
      {
        id: agentId,
        object: 'model',
        created: expect.any(Number),
        owned_by: service.orgId,
        name: 'Help desk',
      },
    ]);
  });

  it('answers a chat completion with the agent: a cited answer, usage, and the sources beside it', async () => {
    const completion = await openai.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: WARRANTY_QUESTION }],
    });

    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: agentId,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: expect.stringMatching(/two year warranty/i) },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
    });
    const usage = completion.usage;
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    const sources = (completion as unknown as { sources: Source[] }).sources;
    const warranty = sources.find((source) => source.document_url === site.url('/warranty'));
    expect(warranty).toMatchObject({ document_title: 'Warranty', number: expect.any(Number) });
    expect(completion.choices[0]?.message.content).toContain(`[${warranty?.number}]`);
    const recorded = await api(service.url, `/api/v1/interactions?agent_id=${agentId}&limit=100`, {
      key: service.adminKey,
    });
    const interactionId = (completion as unknown as { interaction_id: string }).interaction_id;
    expect(
      (json(recorded).interactions as Array<Record<string, unknown>>).find(
        (interaction) => interaction.id === interactionId,
      ),
    ).toMatchObject({ channel: 'openai', key_id: key.keyId, query: WARRANTY_QUESTION });
  });

  it('streams: chat.completion.chunk events, the last finishing with stop and carrying usage and sources, then [DONE]', async () => {
    const stream = await openai.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: WARRANTY_QUESTION }],
      stream: true,
    });

    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: agentId });
      expect(chunk.id).toBe(chunks[0]?.id);
    }
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toMatch(/two year warranty/i);
    const last = chunks.at(-1) as unknown as {
      choices: Array<{ finish_reason: string }>;
      usage: { total_tokens: number };
      sources: Source[];
    };
    expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(
      true,
    );
    expect(last.choices[0]?.finish_reason).toBe('stop');
    expect(last.usage.total_tokens).toBeGreaterThan(0);
    // The streamed text cites each source by the number it carries.
    const warranty = last.sources.find((source) => source.document_url === site.url('/warranty'));
    expect(text).toContain(`[${warranty?.number}]`);
  });

  it('ends the raw stream with data: [DONE], every event a data line only', async () => {
    const response = await api(service.url, '/api/v1/openai/chat/completions', {
      method: 'POST',
      key: key.key,
      body: {
        model: agentId,
        messages: [{ role: 'user', content: WARRANTY_QUESTION }],
        stream: true,
      },
    });

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = response.text.split('\n\n').filter((event) => event.trim() !== '');
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  it('takes earlier messages as the history: a short follow-up is asked about the conversation', async () => {
    const completion = await openai.chat.completions.create({
      model: agentId,
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: WARRANTY_QUESTION },
        { role: 'assistant', content: 'Every Acme widget carries a two year warranty.' },
        { role: 'user', content: 'Does it cover drops?' },
      ],
    });

    expect(completion.choices[0]?.message.content).toMatch(/dropping/i);
  });

  it('refuses a wrong key with 401, in OpenAI’s error shape', async () => {
    const wrong = clientWith(`${key.key.slice(0, -4)}AAAA`);

    const refusal = await wrong.models.list().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(refusal).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refusal).toMatchObject({
      status: 401,
      type: 'authentication_error',
      code: 'unauthorized',
      param: null,
    });
  });

  it('answers 404 for an unknown model, and for another organization’s agent alike', async () => {
    const other = await createTenant(service, { name: 'Tenant B' });
    const ask = (client: OpenAI, model: string) =>
      client.chat.completions
        .create({ model, messages: [{ role: 'user', content: WARRANTY_QUESTION }] })
        .then(
          () => undefined,
          (error: unknown) => error,
        );

    const unknown = await ask(openai, 'gpt-4o');
    const theirs = await ask(clientWith(other.key), agentId);

    for (const refusal of [unknown, theirs]) {
      expect(refusal).toBeInstanceOf(OpenAI.NotFoundError);
      expect(refusal).toMatchObject({ status: 404, type: 'not_found_error' });
    }
    expect((theirs as Error).message).toMatch(/does not exist or you do not have access to it/);
  });

  it('answers 429 with Retry-After once the day’s tokens are spent, in OpenAI’s error shape', async () => {
    const tenant = await createTenant(service, { plan: 'free', name: 'Spent tenant' });
    await service.runtime.dependencies.dailyUsage.addTokens(
      tenant.orgId,
      Number.MAX_SAFE_INTEGER / 2,
      clock.now().getTime(),
    );

    const refusal = await clientWith(tenant.key)
      .chat.completions.create({
        model: agentId,
        messages: [{ role: 'user', content: WARRANTY_QUESTION }],
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(refusal).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refusal as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error' });
    expect((error.error as { details?: { reason?: string } }).details?.reason).toBe('daily_tokens');
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a conversation that does not end with the user’s question with 400', async () => {
    const refusal = await openai.chat.completions
      .create({ model: agentId, messages: [{ role: 'assistant', content: 'Hello.' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(refusal).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refusal).toMatchObject({ status: 400, type: 'invalid_request_error' });
  });
});
