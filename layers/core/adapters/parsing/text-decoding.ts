/**
 * Bytes to text for fetched pages and uploaded files. The encoding comes from
 * a byte order mark first (it is unambiguous), then the declared charset (a
 * `Content-Type` parameter or, for HTML, a `<meta>` in the first KiB, where
 * browsers look for it too), else UTF-8. Undecodable bytes become U+FFFD
 * rather than failing: a page with one bad byte is still worth indexing.
 */

import { TextDecoder } from 'node:util';

const BOMS = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
] as const;

/** How far into an HTML document a `<meta charset>` is looked for (the HTML standard's prescan uses 1024 bytes). */
const META_PRESCAN_BYTES = 1024;

/**
 * Decodes `bytes` with the BOM's encoding, else `charset` (an encoding label
 * such as `utf-8` or `windows-1252`), else UTF-8. Unknown labels fall back to
 * UTF-8. The BOM itself is not part of the text.
 */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  for (const bom of BOMS) {
    if (bom.bytes.every((byte, index) => bytes[index] === byte)) {
      return decoderFor(bom.encoding).decode(bytes.subarray(bom.bytes.length));
    }
  }
  return decoderFor(charset).decode(bytes);
}

/**
 * Decodes an HTML document: the charset from `Content-Type` if given, else
 * from a `<meta charset>` or `<meta http-equiv="Content-Type">` near the start.
 */
export function decodeHtml(bytes: Uint8Array, contentType?: string): string {
  const declared = charsetOf(contentType) ?? sniffMetaCharset(bytes);
  return decodeText(bytes, declared);
}

/** The `charset` parameter of a `Content-Type` value, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/** The media type of a `Content-Type` value, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  // Latin-1 maps every byte to one character, so the prescan cannot fail on bad UTF-8.
  const head = Buffer.from(bytes.subarray(0, META_PRESCAN_BYTES)).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}

function decoderFor(label: string | undefined): TextDecoder {
  try {
    return new TextDecoder(label ?? 'utf-8');
  } catch {
    // An unknown label (RangeError): the declaration is wrong, UTF-8 is the best guess.
    return new TextDecoder('utf-8');
  }
}
