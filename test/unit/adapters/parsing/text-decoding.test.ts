import {
  charsetOf,
  decodeHtml,
  decodeText,
  mediaTypeOf,
} from '../../../../layers/core/adapters/parsing/text-decoding';

describe('Function: decodeText', () => {
  it('decodes UTF-8 by default, replacing invalid bytes', () => {
    expect(decodeText(Buffer.from([0x68, 0xc3, 0xa9, 0xff]))).toBe('hé\ufffd');
  });

  it('lets a byte order mark win over the declared charset', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é')]);
    expect(decodeText(utf8, 'windows-1252')).toBe('é');
    const utf16be = Buffer.from([0xfe, 0xff, 0x00, 0x41]);
    expect(decodeText(utf16be)).toBe('A');
  });

  it('uses the declared charset, falling back to UTF-8 for an unknown label', () => {
    expect(decodeText(Buffer.from([0xe9]), 'iso-8859-1')).toBe('é');
    expect(decodeText(Buffer.from('ok'), 'no-such-charset')).toBe('ok');
  });
});

describe('Function: decodeHtml', () => {
  it('prefers the Content-Type charset, then a <meta> declaration', () => {
    const body = Buffer.concat([Buffer.from('<meta charset="utf-8"><p>'), Buffer.from([0xe9])]);
    expect(decodeHtml(body, 'text/html; charset=windows-1252')).toBe('<meta charset="utf-8"><p>é');

    const legacy = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><p>'),
      Buffer.from([0xe9]),
    ]);
    expect(decodeHtml(legacy, 'text/html')).toContain('<p>é');
  });
});

describe('Functions: charsetOf, mediaTypeOf', () => {
  it('reads the parts of a Content-Type value', () => {
    expect(charsetOf('text/html; Charset="UTF-8"')).toBe('utf-8');
    expect(charsetOf('text/html')).toBeUndefined();
    expect(mediaTypeOf(' Text/HTML ; charset=utf-8')).toBe('text/html');
    expect(mediaTypeOf('')).toBeUndefined();
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });
});
