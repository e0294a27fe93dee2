import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import {
  apiKeyChecksum,
  apiKeyLast4,
  generateApiKey,
  hashApiKey,
  parseApiKey,
} from '../../../layers/core/domain/api-key';

describe('Domain: API key format (D10)', () => {
  it('generates keys of the documented shape for each environment', () => {
    // Act
    const live = generateApiKey('live');
    const test = generateApiKey('test');

    // Assess
    expect(live).toMatch(/^svcsk_live_[0-9A-Za-z]{36}$/);
    expect(test).toMatch(/^svcsk_test_[0-9A-Za-z]{36}$/);
    expect(parseApiKey(live)).toEqual({ ok: true, environment: 'live' });
    expect(parseApiKey(test)).toEqual({ ok: true, environment: 'test' });
  });

  it('computes the checksum as zlib CRC32 in left-padded base62', () => {
    // Prepare: CRC32("svcsk_test_") written in base62 by hand
    const body = 'svcsk_test_';
    let value = crc32(body) >>> 0;
    const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let expected = '';
    while (value > 0) {
      expected = digits[value % 62] + expected;
      value = Math.floor(value / 62);
    }

    // Act + Assess
    expect(apiKeyChecksum(body)).toBe(expected.padStart(6, '0'));
    expect(apiKeyChecksum(body)).toHaveLength(6);
  });

  it('refuses any single-character change of a valid key', () => {
    const key = generateApiKey('test');
    fc.assert(
      fc.property(
        fc.nat(key.length - 1),
        fc.constantFrom(...'0123456789ABCabcxyzXYZ_'),
        (index, char) => {
          fc.pre(key[index] !== char);
          const mutated = key.slice(0, index) + char + key.slice(index + 1);
          expect(parseApiKey(mutated).ok).toBe(false);
        },
      ),
    );
  });

  it('tells a malformed key from a bad checksum', () => {
    const key = generateApiKey('live');
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expect(parseApiKey(`${key.slice(0, -1)}${last}`)).toEqual({
      ok: false,
      problem: 'bad_checksum',
    });
    expect(parseApiKey('svcsk_prod_abc')).toEqual({ ok: false, problem: 'malformed' });
    expect(parseApiKey(`${key} `)).toEqual({ ok: false, problem: 'malformed' });
    expect(parseApiKey(`x${key}`)).toEqual({ ok: false, problem: 'malformed' });
  });

  it('stores a SHA-256 hash and shows only the last four characters', () => {
    const key = generateApiKey('test');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    // FIPS 180-2's example: SHA-256 of "abc", in lower-case hex.
    expect(hashApiKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(apiKeyLast4(key)).toBe(key.slice(-4));
  });
});
