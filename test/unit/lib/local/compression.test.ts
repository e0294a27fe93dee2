import {
  chooseEncoding,
  isCompressibleType,
  varyWithAcceptEncoding,
} from '../../../../lib/local/compression';

describe('Choosing an encoding from Accept-Encoding', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0.2', 'gzip'],
    ['gzip;q=0, br;q=0', null],
    ['identity', null],
    ['deflate', null],
    ['*', 'br'],
    ['*;q=0.1, br;q=0', 'gzip'],
    ['', null],
    [undefined, null],
  ] as const)('"%s" → %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });

  it('reads a header sent twice as one list', () => {
    expect(chooseEncoding(['gzip;q=0.4', 'br;q=0.9'])).toBe('br');
  });
});

describe('What is worth compressing', () => {
  it.each([
    'text/html; charset=utf-8',
    'text/css; charset=utf-8',
    'text/javascript; charset=utf-8',
    'application/json; charset=utf-8',
    'application/problem+json',
    'image/svg+xml',
    'text/plain; charset=utf-8',
  ])('compresses %s', (type) => {
    expect(isCompressibleType(type)).toBe(true);
  });

  it.each([
    'text/event-stream',
    'text/event-stream; charset=utf-8',
    'image/png',
    'font/woff2',
    'application/pdf',
    'application/octet-stream',
    undefined,
  ])('leaves %s as it is (an event stream is flushed event by event)', (type) => {
    expect(isCompressibleType(type)).toBe(false);
  });
});

describe('Vary', () => {
  it('adds Accept-Encoding to what is there, once', () => {
    expect(varyWithAcceptEncoding(undefined)).toBe('Accept-Encoding');
    expect(varyWithAcceptEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyWithAcceptEncoding('origin, accept-encoding')).toBe('origin, accept-encoding');
    expect(varyWithAcceptEncoding('*')).toBe('*');
  });
});
