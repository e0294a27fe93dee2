import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../layers/core/adapters/dynamodb/table-design';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Interaction history and feedback (spec; D2, D3, D8): six questions asked
 * on chosen days (the clock jumps between them), listed with every filter,
 * and feedback that changes its mind.
 */
describe('Interactions and feedback', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let first: Record<string, any>;
  let second: Record<string, any>;
  /** Interaction ids by name: i1 is the oldest. */
  const ids = {} as Record<'i1' | 'i2' | 'i3' | 'i4' | 'i5' | 'i6', string>;

  const ask = async (at: string, agentId: string, query: string) => {
    clock.advanceTo(at);
    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: service.adminKey,
      body: { agent_id: agentId, query },
    });
    expect(response.status).toBe(200);
    return json(response).metadata.interaction_id as string;
  };
  const feedback = (id: string, body: Record<string, unknown>, key = service.adminKey) =>
    api(service.url, `/api/v1/interactions/${id}/feedback`, { method: 'POST', key, body });

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock }),
      startLoopbackSite(helpCenterPages),
    ]);
    const { source } = await indexWebsite(service, service.adminKey, site.url('/'));
    first = await createAgent(service, service.adminKey, {
      name: 'First',
      data_source_ids: [source.id],
    });
    second = await createAgent(service, service.adminKey, {
      name: 'Second',
      data_source_ids: [source.id],
    });
    // D3: whole UTC days, so the first instant of a day and its last seconds both belong to it.
    ids.i1 = await ask('2027-05-10T00:00:00.000Z', first.id, 'How long is the return window?');
    ids.i2 = await ask('2027-05-10T09:00:00.000Z', second.id, 'How fast is express shipping?');
    ids.i3 = await ask('2027-05-11T23:59:30.000Z', first.id, 'What does the warranty cover?');
    ids.i4 = await ask('2027-05-12T00:00:00.000Z', first.id, 'Can gift cards be refunded?');
    ids.i5 = await ask('2027-05-12T15:00:00.000Z', second.id, 'Is standard shipping free?');
    ids.i6 = await ask('2027-05-14T10:00:00.000Z', first.id, 'Does the warranty cover drops?');
    clock.advanceTo('2027-05-20T12:00:00.000Z');
    for (const [id, value] of [
      [ids.i1, 'positive'],
      [ids.i3, 'negative'],
      [ids.i5, 'positive'],
      [ids.i5, 'negative'], // changes its mind: the latest wins
    ] as const) {
      expect((await feedback(id, { feedback: value })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const list = (query = '', key = service.adminKey, path = '/api/v1/interactions') =>
    api(service.url, `${path}${query ? `?${query}` : ''}`, { key });
  const listed = async (query = '') => {
    const response = await list(query);
    expect(response.status).toBe(200);
    const body = json(response);
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return {
      names: (body.interactions as Array<Record<string, any>>).map((item) => names[item.id]),
      body,
    };
  };

  describe('listing', () => {
    it('lists every interaction newest first, with the Interaction fields', async () => {
      const { names, body } = await listed();

      expect(names).toEqual(['i6', 'i5', 'i4', 'i3', 'i2', 'i1']);
      expect(body).toMatchObject({ total: 6, limit: 50, offset: 0 });
      const newest = body.interactions[0];
      expect(newest).toMatchObject({
        id: ids.i6,
        agent_id: first.id,
        query: 'Does the warranty cover drops?',
        response: expect.any(String),
        feedback: null,
        latency_ms: expect.any(Number),
        // The offline answerer quotes its sources: every sentence grounded.
        groundedness: 1,
        created_at: expect.stringMatching(ISO_MS),
      });
      for (const source of newest.sources) {
        expect(source).toMatchObject({
          document_id: expect.stringMatching(/^doc_/),
          data_source_id: expect.stringMatching(/^ds_/),
        });
        expect(source.quoted_ranges.length).toBeGreaterThan(0);
      }
      expect(newest.created_at.startsWith('2027-05-14T10:00:0')).toBe(true);
      expect(Number.isInteger(newest.latency_ms)).toBe(true);
    });

    it('filters by agent', async () => {
      const { names, body } = await listed(`agent_id=${second.id}`);

      expect(names).toEqual(['i5', 'i2']);
      expect(body.total).toBe(2);
      expect((await listed(`agent_id=${unknownId('agt')}`)).body.total).toBe(0);
    });

    it.each([
      ['one day', 'start_date=2027-05-11&end_date=2027-05-11', ['i3']],
      [
        'two days, inclusive at both ends',
        'start_date=2027-05-10&end_date=2027-05-11',
        ['i3', 'i2', 'i1'],
      ],
      ['a start only', 'start_date=2027-05-12', ['i6', 'i5', 'i4']],
      ['an end only', 'end_date=2027-05-10', ['i2', 'i1']],
      ['a day without any', 'start_date=2027-05-13&end_date=2027-05-13', []],
      [
        'a range around all',
        'start_date=2027-01-01&end_date=2027-12-31',
        ['i6', 'i5', 'i4', 'i3', 'i2', 'i1'],
      ],
    ])('filters by whole UTC days (D3): %s', async (_name, query, expected) => {
      const { names, body } = await listed(query);

      expect(names).toEqual(expected);
      expect(body.total).toBe(expected.length);
    });

    it.each([
      ['positive', ['i1']],
      ['negative', ['i5', 'i3']],
      ['null', ['i6', 'i4', 'i2']],
    ])('filters by feedback=%s', async (value, expected) => {
      const { names, body } = await listed(`feedback=${value}`);

      expect(names).toEqual(expected);
      expect(body.total).toBe(expected.length);
    });

    it('combines the filters', async () => {
      const { names } = await listed(`agent_id=${first.id}&feedback=null&start_date=2027-05-12`);

      expect(names).toEqual(['i6', 'i4']);
    });

    it('pages with limit and offset, total counting every match (D2)', async () => {
      const pages = [];
      for (const offset of [0, 2, 4, 6]) {
        const { names, body } = await listed(`limit=2&offset=${offset}`);
        expect(body).toMatchObject({ total: 6, limit: 2, offset });
        pages.push(names);
      }

      expect(pages).toEqual([['i6', 'i5'], ['i4', 'i3'], ['i2', 'i1'], []]);
      const filtered = await listed(`feedback=null&limit=1&offset=1`);
      expect(filtered.names).toEqual(['i4']);
      expect(filtered.body.total).toBe(3);
    });

    it.each([
      ['an impossible date', 'start_date=2026-02-30', 'start_date'],
      ['a month 13', 'end_date=2026-13-01', 'end_date'],
      ['a date with a time', 'start_date=2027-05-10T00:00:00Z', 'start_date'],
      ['a word', 'end_date=yesterday', 'end_date'],
      ['a start after the end', 'start_date=2027-05-12&end_date=2027-05-10', 'start_date'],
      ['an unknown feedback value', 'feedback=neutral', 'feedback'],
      ['a malformed agent id', 'agent_id=agt_1', 'agent_id'],
      ['limit 0', 'limit=0', 'limit'],
      ['limit 201', 'limit=201', 'limit'],
      ['a negative offset', 'offset=-1', 'offset'],
    ])('refuses %s with 400 naming the parameter', async (_name, query, field) => {
      const response = await list(query);

      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([field]);
    });

    it('refuses an unknown parameter (D4)', async () => {
      const error = expectNestedError(await list('sort=asc'), 400, 'invalid_request');

      expect(error.details.unknown_fields).toEqual(['sort']);
    });

    it('answers the legacy path the same, from camelCase parameters (D7, D8)', async () => {
      const query = `agent_id=${first.id}&start_date=2027-05-10&end_date=2027-05-12`;
      const v1 = await list(query);
      const legacy = await list(
        `agentId=${first.id}&startDate=2027-05-10&endDate=2027-05-12`,
        service.adminKey,
        '/api/interactions',
      );

      expect(legacy.status).toBe(200);
      expect(legacy.headers.get('deprecation')).toBe('true');
      expect(json(legacy)).toEqual(json(v1));
      expect(json(legacy).total).toBe(3);
      expectFlatError(
        await list('startDate=2026-02-30', service.adminKey, '/api/interactions'),
        400,
      );
    });

    it('needs the Read scope to list (D9)', async () => {
      const execute = await createKey(service, service.orgId, { scopes: ['Execute'] });
      const read = await createKey(service, service.orgId, { scopes: ['Read'] });

      const refused = expectNestedError(await list('', execute.key), 403, 'forbidden');
      expect(refused.details.required_scope).toBe('Read');
      expect((await list('', read.key)).status).toBe(200);
    });
  });

  describe('feedback', () => {
    const accuracy = async () => {
      const response = await api(
        service.url,
        '/api/v1/analytics?start_date=2027-05-10&end_date=2027-05-14',
        { key: service.adminKey },
      );
      expect(response.status).toBe(200);
      return json(response).metrics.accuracy_rate;
    };

    it('keeps only the latest feedback, in the list and in analytics (D34)', async () => {
      // i1 positive; i3 negative; i5 positive then negative. Counting every
      // feedback ever given would make it 2 / 4.
      expect(await accuracy()).toBeCloseTo(1 / 3, 10);
      expect((await listed(`feedback=positive`)).names).toEqual(['i1']);

      const changed = await feedback(ids.i3, {
        feedback: 'positive',
        comment: 'On reflection, yes',
      });

      expect(changed.status).toBe(200);
      expect(json(changed)).toMatchObject({
        id: ids.i3,
        feedback: 'positive',
        feedback_comment: 'On reflection, yes',
      });
      expect(await accuracy()).toBeCloseTo(2 / 3, 10);
      expect((await listed('feedback=negative')).names).toEqual(['i5']);
    });

    it('counts the same feedback given twice once', async () => {
      const before = await accuracy();

      for (let i = 0; i < 2; i += 1) {
        const response = await feedback(ids.i1, { feedback: 'positive', comment: null });
        expect(json(response)).toMatchObject({ feedback: 'positive', feedback_comment: null });
      }

      expect(await accuracy()).toBe(before);
    });

    it.each([
      ['an unknown feedback value', { feedback: 'neutral' }, 'feedback'],
      ['no feedback', { comment: 'hm' }, 'feedback'],
      ['a null feedback', { feedback: null }, 'feedback'],
      [
        'a comment over 2,000 characters',
        { feedback: 'positive', comment: 'x'.repeat(2_001) },
        'comment',
      ],
      ['a comment that is not a string', { feedback: 'positive', comment: 5 }, 'comment'],
    ])('refuses %s with 400', async (_name, body, field) => {
      const response = await feedback(ids.i2, body);

      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([field]);
      expect((await listed('feedback=null')).names).toContain('i2');
    });

    it('answers 404 for an unknown interaction, 400 for a malformed id (D1)', async () => {
      expectNestedError(
        await feedback(unknownId('int'), { feedback: 'positive' }),
        404,
        'not_found',
      );
      const malformed = await feedback(first.id, { feedback: 'positive' });
      expect(fieldPaths(expectNestedError(malformed, 400, 'invalid_request'))).toEqual(['id']);
    });

    it('needs the Execute scope (D9)', async () => {
      const read = await createKey(service, service.orgId, { scopes: ['Read', 'Write'] });
      const execute = await createKey(service, service.orgId, { scopes: ['Execute'] });

      const refused = await feedback(ids.i2, { feedback: 'negative' }, read.key);
      expect(expectNestedError(refused, 403, 'forbidden').details.required_scope).toBe('Execute');
      const admitted = await feedback(ids.i6, { feedback: 'positive' }, execute.key);
      expect(admitted.status).toBe(200);
    });

    it('takes the interaction id in the body on the legacy path (D8)', async () => {
      const legacy = (body: Record<string, unknown>) =>
        api(service.url, '/api/interactions/feedback', {
          method: 'POST',
          key: service.adminKey,
          body,
        });

      const camel = await legacy({ interactionId: ids.i4, feedback: 'negative', comment: 'Vague' });
      const snake = await legacy({ interaction_id: ids.i4, feedback: 'positive' });

      expect(camel.status).toBe(200);
      expect(camel.headers.get('deprecation')).toBe('true');
      // D7: the successor is the v1 feedback path of the interaction the body names.
      expect(camel.headers.get('link')).toBe(
        `</api/v1/interactions/${ids.i4}/feedback>; rel="successor-version"`,
      );
      expect(json(camel)).toMatchObject({
        id: ids.i4,
        feedback: 'negative',
        feedback_comment: 'Vague',
      });
      expect(json(snake)).toMatchObject({
        id: ids.i4,
        feedback: 'positive',
        feedback_comment: null,
      });
      expect((await listed('feedback=positive')).names).toContain('i4');
      const missing = await legacy({ feedback: 'positive' });
      expectFlatError(missing, 400);
      // Without an interaction there is no successor path to name, and never a broken one.
      expect(missing.headers.get('link')).toBeNull();
      expect(missing.headers.get('deprecation')).toBe('true');
      expectFlatError(await legacy({ interactionId: 'int_1', feedback: 'positive' }), 400);
      const unknown = unknownId('int');
      const notFound = await legacy({ interactionId: unknown, feedback: 'positive' });
      expectFlatError(notFound, 404);
      expect(notFound.headers.get('link')).toBe(
        `</api/v1/interactions/${unknown}/feedback>; rel="successor-version"`,
      );
    });
  });

  describe('interactions recorded before answers were grounded', () => {
    it('read with a null groundedness and sources that quote nothing', async () => {
      const id = ids.i2;
      const find = async () =>
        (await listed()).body.interactions.find((item: Record<string, any>) => item.id === id);
      const stored = await find();
      // Prepare: the item as an older version stored it, without the new fields.
      await service.runtime.client.send(
        new UpdateCommand({
          TableName: 'svc',
          Key: { PK: keys.orgPartition(service.orgId), SK: `INT#${id}` },
          UpdateExpression: 'REMOVE groundedness SET sources = :sources',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: {
            ':sources': stored.sources.map(
              ({ quoted_ranges: _, ...source }: Record<string, unknown>) => source,
            ),
          },
        }),
      );

      const read = await find();

      expect(read.groundedness).toBeNull();
      expect(read.sources.length).toBe(stored.sources.length);
      for (const source of read.sources) expect(source.quoted_ranges).toEqual([]);
    });
  });
});
