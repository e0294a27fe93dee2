import { emailDomain, normalizeDomain, verificationRecord } from '../../../layers/core/domain/sso';

describe('Function: normalizeDomain (D14 verified domains)', () => {
  it.each([
    ['Example.COM', 'example.com'],
    [' acme.example. ', 'acme.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
  ])('normalizes %p to %p', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([
    'localhost',
    '127.0.0.1',
    '[::1]',
    'http://acme.example',
    'acme.example:443',
    'acme.example/path',
    'user@acme.example',
    'a..example',
    '-a.example',
    'a-.example',
    'acme example',
    `${'a'.repeat(64)}.example`,
    '',
  ])('refuses %p', (input) => {
    expect(normalizeDomain(input)).toBeNull();
  });

  it("takes an email's domain after its last @", () => {
    expect(emailDomain('"odd@name"@Acme.Example')).toBe('acme.example');
    expect(emailDomain('no-at-sign')).toBeNull();
  });

  it('names the TXT record under the domain', () => {
    expect(verificationRecord('acme.example', 'tok')).toEqual({
      name: '_svc-verification.acme.example',
      value: 'svc-domain-verification=tok',
    });
  });
});
