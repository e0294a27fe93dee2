import {
  grantsScope,
  SCOPE_RATE_LIMITS,
  SCOPES,
  type Scope,
} from '../../../layers/core/domain/scopes';

describe('Function: grantsScope (D9)', () => {
  it('grants a scope to a key that holds it', () => {
    for (const scope of SCOPES) expect(grantsScope([scope], scope)).toBe(true);
  });

  it('grants every scope to an Admin key, alone or beside others', () => {
    for (const scope of SCOPES) {
      expect(grantsScope(['Admin'], scope)).toBe(true);
      expect(grantsScope(['Read', 'Admin'], scope)).toBe(true);
    }
  });

  it('grants nothing a key does not hold: Read, Write and Execute imply nothing else', () => {
    const single: readonly Scope[] = ['Read', 'Write', 'Execute'];
    for (const held of single) {
      for (const required of SCOPES.filter((scope) => scope !== held)) {
        expect({ held, required, granted: grantsScope([held], required) }).toEqual({
          held,
          required,
          granted: false,
        });
      }
    }
  });

  it('grants what any of several scopes grants, and nothing to a key without scopes', () => {
    expect(grantsScope(['Read', 'Execute'], 'Execute')).toBe(true);
    expect(grantsScope(['Read', 'Execute'], 'Write')).toBe(false);
    expect(grantsScope([], 'Read')).toBe(false);
  });
});

describe('Constant: SCOPE_RATE_LIMITS (the spec, Limits)', () => {
  it('gives each scope its requests per minute and a burst above it', () => {
    expect(SCOPE_RATE_LIMITS).toEqual({
      Execute: { perMinute: 100, burst: 120 },
      Write: { perMinute: 10, burst: 15 },
      Read: { perMinute: 200, burst: 250 },
      Admin: { perMinute: 50, burst: 60 },
    });
  });
});
