import { InvalidRequestError } from '../../../layers/core/domain/errors';
import { queryInteger, snakeCaseKeys } from '../../../layers/core/http/validation';

describe('HTTP: legacy camelCase synonyms (D7)', () => {
  it('converts camelCase keys at every depth', () => {
    expect(snakeCaseKeys({ dataSourceIds: ['a'], config: { maxPages: 3 } })).toEqual({
      data_source_ids: ['a'],
      config: { max_pages: 3 },
    });
  });

  it('refuses a field given in both spellings', () => {
    expect(() => snakeCaseKeys({ agentId: 'a', agent_id: 'b' })).toThrow(InvalidRequestError);
  });
});

describe('HTTP: query integers (D2)', () => {
  const limit = queryInteger(1, 200);

  it.each(['1', '50', '200'])('accepts %s', (value) => {
    expect(limit.safeParse(value)).toEqual({ success: true, data: Number(value) });
  });

  it.each(['0', '201', '-1', '1.5', '1e2', 'abc', '', ' 5', '99999999999'])(
    'refuses %j',
    (value) => {
      expect(limit.safeParse(value).success).toBe(false);
    },
  );
});
