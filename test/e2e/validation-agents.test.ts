import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { validationSuite } from './validation-suite';

/**
 * Validation at the edge (D1, D2, D4, D17): every malformed request is a 400
 * `invalid_request` in the nested shape that names the offending fields
 * (`details.fields[].path`) or lists unknown ones (`details.unknown_fields`);
 * nothing malformed is ever stored.
 */
describe('Request validation', () => {
  const { send, countOf, expectInvalid, service, dataSourceId } = validationSuite();

  describe('agent bodies', () => {
    const valid = () => ({ name: 'Support agent', data_source_ids: [dataSourceId()] });
    const wellFormedDs = unknownId('ds');
    const cases: ReadonlyArray<{
      name: string;
      body: () => unknown;
      fields?: string[];
      unknown?: string[];
    }> = [
      { name: 'an empty object', body: () => ({}), fields: ['name', 'data_source_ids'] },
      { name: 'no name', body: () => ({ data_source_ids: [] }), fields: ['name'] },
      { name: 'no data_source_ids', body: () => ({ name: 'x' }), fields: ['data_source_ids'] },
      { name: 'a numeric name', body: () => ({ ...valid(), name: 42 }), fields: ['name'] },
      { name: 'a null name', body: () => ({ ...valid(), name: null }), fields: ['name'] },
      { name: 'an empty name', body: () => ({ ...valid(), name: '' }), fields: ['name'] },
      { name: 'a blank name', body: () => ({ ...valid(), name: '   ' }), fields: ['name'] },
      {
        name: 'a name of 201 characters (D17: at most 200)',
        body: () => ({ ...valid(), name: 'n'.repeat(201) }),
        fields: ['name'],
      },
      {
        name: 'a system_prompt of 20,001 characters (D17: at most 20,000)',
        body: () => ({ ...valid(), system_prompt: 'p'.repeat(20_001) }),
        fields: ['system_prompt'],
      },
      {
        name: 'a non-string system_prompt',
        body: () => ({ ...valid(), system_prompt: ['a'] }),
        fields: ['system_prompt'],
      },
      {
        name: 'a temperature below 0',
        body: () => ({ ...valid(), temperature: -0.01 }),
        fields: ['temperature'],
      },
      {
        name: 'a temperature above 2 (D18)',
        body: () => ({ ...valid(), temperature: 2.01 }),
        fields: ['temperature'],
      },
      {
        name: 'a temperature given as a string',
        body: () => ({ ...valid(), temperature: '1' }),
        fields: ['temperature'],
      },
      {
        name: 'a null temperature',
        body: () => ({ ...valid(), temperature: null }),
        fields: ['temperature'],
      },
      {
        name: 'a fractional max_tokens',
        body: () => ({ ...valid(), max_tokens: 1.5 }),
        fields: ['max_tokens'],
      },
      { name: 'max_tokens 0', body: () => ({ ...valid(), max_tokens: 0 }), fields: ['max_tokens'] },
      {
        name: 'a negative max_tokens',
        body: () => ({ ...valid(), max_tokens: -5 }),
        fields: ['max_tokens'],
      },
      {
        name: 'max_tokens as a string',
        body: () => ({ ...valid(), max_tokens: '100' }),
        fields: ['max_tokens'],
      },
      {
        name: 'an unknown rag_strategy (D20)',
        body: () => ({ ...valid(), rag_strategy: 'fast' }),
        fields: ['rag_strategy'],
      },
      {
        name: 'a rag_strategy in the wrong case',
        body: () => ({ ...valid(), rag_strategy: 'HYBRID' }),
        fields: ['rag_strategy'],
      },
      { name: 'an empty model', body: () => ({ ...valid(), model: '' }), fields: ['model'] },
      { name: 'a numeric model', body: () => ({ ...valid(), model: 4 }), fields: ['model'] },
      {
        name: 'an unknown status (D20)',
        body: () => ({ ...valid(), status: 'deleted' }),
        fields: ['status'],
      },
      {
        name: 'data_source_ids as a string',
        body: () => ({ ...valid(), data_source_ids: dataSourceId() }),
        fields: ['data_source_ids'],
      },
      {
        name: 'a data source id with the agent prefix (D1)',
        body: () => ({ ...valid(), data_source_ids: [unknownId('agt')] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'a data source id that is not a ULID',
        body: () => ({ ...valid(), data_source_ids: [dataSourceId(), 'ds_123'] }),
        fields: ['data_source_ids.1'],
      },
      {
        name: 'a data source id in upper case',
        body: () => ({ ...valid(), data_source_ids: [dataSourceId().toUpperCase()] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'a numeric data source id',
        body: () => ({ ...valid(), data_source_ids: [7] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'duplicate data source ids',
        body: () => ({ ...valid(), data_source_ids: [wellFormedDs, wellFormedDs] }),
        fields: ['data_source_ids'],
      },
      {
        name: 'unknown fields (D4)',
        body: () => ({ ...valid(), colour: 'blue', Name: 'x' }),
        unknown: ['colour', 'Name'],
      },
      {
        name: 'read-only fields',
        body: () => ({ ...valid(), id: unknownId('agt'), created_at: '2026-01-01T00:00:00.000Z' }),
        unknown: ['id', 'created_at'],
      },
      {
        name: 'legacy camelCase spellings (v1 takes snake_case only)',
        body: () => ({ name: 'x', dataSourceIds: [] }),
        fields: ['data_source_ids'],
        unknown: ['dataSourceIds'],
      },
      {
        name: 'unknown fields and invalid ones together',
        body: () => ({ name: '', data_source_ids: [], extra: true }),
        fields: ['name'],
        unknown: ['extra'],
      },
      {
        name: 'a temperature too small for storage (1e-200)',
        body: () => ({ ...valid(), temperature: 1e-200 }),
        fields: ['temperature'],
      },
      {
        name: 'the smallest double as temperature',
        body: () => ({ ...valid(), temperature: Number.MIN_VALUE }),
        fields: ['temperature'],
      },
      { name: 'a JSON array', body: () => [valid()], fields: ['(body)'] },
      { name: 'JSON null', body: () => null, fields: ['(body)'] },
      { name: 'a JSON string', body: () => 'agent', fields: ['(body)'] },
      { name: 'a JSON number', body: () => 42, fields: ['(body)'] },
    ];

    it.each(cases)('refuses a create with $name', async ({ body, fields, unknown }) => {
      const before = await countOf('/api/v1/agents');

      const response = await send('/api/v1/agents', 'POST', body());

      expectInvalid(response, { ...(fields ? { fields } : {}), ...(unknown ? { unknown } : {}) });
      expect(await countOf('/api/v1/agents')).toBe(before);
    });

    it('says which data source ids are unknown', async () => {
      const missing = unknownId('ds');

      const response = await send('/api/v1/agents', 'POST', {
        ...valid(),
        data_source_ids: [dataSourceId(), missing],
      });

      const error = expectInvalid(response, {
        fields: ['data_source_ids'],
        namedInMessage: false,
      });
      expect(error.details.unknown_data_source_ids).toEqual([missing]);
      expect(error.message).toContain(missing);
    });

    it('says duplicates are duplicates', async () => {
      const response = await send('/api/v1/agents', 'POST', {
        ...valid(),
        data_source_ids: [dataSourceId(), dataSourceId()],
      });

      expect(expectInvalid(response, { fields: ['data_source_ids'] }).message).toMatch(/duplicate/);
    });

    it('refuses a create without a body', async () => {
      const response = await api(service().url, '/api/v1/agents', {
        method: 'POST',
        key: service().adminKey,
      });

      expectInvalid(response, { fields: ['(body)'] });
    });

    it.each([
      ['a name of exactly 200 characters', { name: 'n'.repeat(200) }],
      ['a system_prompt of exactly 20,000 characters', { system_prompt: 'p'.repeat(20_000) }],
      ['temperature 0', { temperature: 0 }],
      ['temperature 2', { temperature: 2 }],
      ['max_tokens 1', { max_tokens: 1 }],
      ['rag_strategy similarity', { rag_strategy: 'similarity' }],
      ['rag_strategy mmr', { rag_strategy: 'mmr' }],
      ['rag_strategy rerank', { rag_strategy: 'rerank' }],
      ['status disabled', { status: 'disabled' }],
      ['a null system_prompt', { system_prompt: null }],
      ['no data sources at all', { data_source_ids: [] }],
    ])('accepts %s', async (_name, overrides) => {
      const response = await send('/api/v1/agents', 'POST', { ...valid(), ...overrides });

      expect(response.status).toBe(201);
      expect(json(response)).toMatchObject(overrides);
    });

    describe('on update', () => {
      let agent: Record<string, any>;
      beforeAll(async () => {
        agent = await createAgent(service(), service().adminKey, valid());
      });

      it.each([
        { name: 'an unknown field', body: { nickname: 'x' }, unknown: ['nickname'] },
        { name: 'an empty name', body: { name: '' }, fields: ['name'] },
        { name: 'a temperature of 3', body: { temperature: 3 }, fields: ['temperature'] },
        { name: 'a fractional max_tokens', body: { max_tokens: 2.5 }, fields: ['max_tokens'] },
        { name: 'an unknown rag_strategy', body: { rag_strategy: 'x' }, fields: ['rag_strategy'] },
        {
          name: 'a bad data source id',
          body: { data_source_ids: ['x'] },
          fields: ['data_source_ids.0'],
        },
        { name: 'a changed id', body: { id: unknownId('agt') }, unknown: ['id'] },
      ])('refuses $name and leaves the agent as it was', async ({ body, fields, unknown }) => {
        const response = await send(`/api/v1/agents/${agent.id}`, 'PUT', body);

        expectInvalid(response, { ...(fields ? { fields } : {}), ...(unknown ? { unknown } : {}) });
        expect(json(await send(`/api/v1/agents/${agent.id}`))).toEqual(agent);
      });

      it('refuses duplicate and unknown data source ids without changing the agent', async () => {
        const missing = unknownId('ds');

        const duplicates = await send(`/api/v1/agents/${agent.id}`, 'PUT', {
          data_source_ids: [dataSourceId(), dataSourceId()],
        });
        const unknown = await send(`/api/v1/agents/${agent.id}`, 'PUT', {
          name: 'renamed',
          data_source_ids: [missing],
        });

        expectInvalid(duplicates, { fields: ['data_source_ids'] });
        expectInvalid(unknown, { fields: ['data_source_ids'], namedInMessage: false });
        expect(json(await send(`/api/v1/agents/${agent.id}`))).toEqual(agent);
      });
    });
  });
});
