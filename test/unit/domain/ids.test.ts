import { isId, newId } from '../../../layers/core/domain/ids';

describe('Domain: ids (D1)', () => {
  it('creates lower-case prefixed ULIDs', () => {
    expect(newId('agent')).toMatch(/^agt_[0-9a-z]{26}$/);
    expect(newId('dataSource')).toMatch(/^ds_[0-9a-z]{26}$/);
    expect(newId('request')).toMatch(/^req_[0-9a-z]{26}$/);
  });

  it('sorts ids by creation time', () => {
    const earlier = newId('agent', 1_700_000_000_000);
    const later = newId('agent', 1_700_000_000_001);
    expect(earlier < later).toBe(true);
  });

  it('accepts only the right prefix and shape', () => {
    const id = newId('agent');
    expect(isId('agent', id)).toBe(true);
    expect(isId('dataSource', id)).toBe(false);
    expect(isId('agent', id.toUpperCase())).toBe(false);
    expect(isId('agent', `${id}x`)).toBe(false);
    expect(isId('agent', 'agt_')).toBe(false);
    expect(isId('agent', id.replace(/.$/, 'u'))).toBe(false); // u is not Crockford base32
  });
});
