/**
 * Hostile inputs made in the tests themselves (issue 13): zip packages
 * written byte by byte (so their central directory can lie), zip and HTTP
 * compression bombs, PDFs that are long or claim to be. Nothing is read
 * from disk; every input is real (the same bytes an attacker would send).
 */
import {
  brotliCompressSync,
  constants,
  crc32,
  deflateRawSync,
  deflateSync,
  gzipSync,
} from 'node:zlib';

const MiB = 1024 * 1024;

/** One entry of a hand-written zip. */
export interface ZipEntrySpec {
  readonly name: string;
  /** The entry's content, deflated by {@link zipOf}; or give `deflated` for a stream made elsewhere. */
  readonly data?: Buffer;
  /** A raw deflate stream (e.g. {@link zerosDeflated}) with its true inflated size. */
  readonly deflated?: { readonly bytes: Buffer; readonly inflatedSize: number };
  /** The size written in the headers, if it should lie. */
  readonly declaredSize?: number;
}

/**
 * A zip archive from `entries`: local headers, deflated data, the central
 * directory and its end record, as any zip writer lays them out (no data
 * descriptors, no zip64). `declaredSize` makes both headers lie.
 */
export function zipOf(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = entry.deflated?.bytes ?? deflateRawSync(entry.data ?? Buffer.alloc(0));
    const trueSize = entry.deflated?.inflatedSize ?? entry.data?.length ?? 0;
    const size = entry.declaredSize ?? trueSize;
    const crc = entry.data ? crc32(entry.data) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflated
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(Math.min(size, 0xfffffffe), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(Math.min(size, 0xfffffffe), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A raw deflate stream of `bytes` zero bytes, about 1/1000 of that size,
 * made in milliseconds: independent 1 MiB segments ended by a full flush
 * (each byte-aligned, none final), then an empty final block.
 */
export function zerosDeflated(bytes: number): { bytes: Buffer; inflatedSize: number } {
  const segment = deflateRawSync(Buffer.alloc(MiB), {
    level: 9,
    finishFlush: constants.Z_FULL_FLUSH,
  });
  const whole = Math.floor(bytes / MiB);
  const rest = bytes - whole * MiB;
  const parts: Buffer[] = new Array(whole).fill(segment);
  if (rest > 0) {
    parts.push(deflateRawSync(Buffer.alloc(rest), { finishFlush: constants.Z_FULL_FLUSH }));
  }
  parts.push(deflateRawSync(Buffer.alloc(0)));
  return { bytes: Buffer.concat(parts), inflatedSize: bytes };
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const PACKAGE_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** `word/document.xml` with one `<w:p>` per paragraph. */
export function documentXml(paragraphs: readonly string[]): Buffer {
  const body = paragraphs
    .map((text) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`)
    .join('');
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
}

/** The smallest DOCX Word and mammoth open: content types, the package relation, the document; plus `extra` entries. */
export function minimalDocx(
  paragraphs: readonly string[],
  extra: readonly ZipEntrySpec[] = [],
  document: ZipEntrySpec = { name: 'word/document.xml', data: documentXml(paragraphs) },
): Buffer {
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(PACKAGE_RELS) },
    document,
    ...extra,
  ]);
}

/** A DOCX zip bomb, honest about it: a "media" entry that declares and inflates to `inflated` bytes of zeros. */
export function honestZipBombDocx(inflated: number): Buffer {
  return minimalDocx(
    ['A document with a large attachment.'],
    [{ name: 'word/media/image1.png', deflated: zerosDeflated(inflated) }],
  );
}

/** A DOCX whose document part claims 1 KiB in both headers but inflates to `inflated` bytes. */
export function lyingZipBombDocx(inflated: number): Buffer {
  return minimalDocx([], [], {
    name: 'word/document.xml',
    deflated: zerosDeflated(inflated),
    declaredSize: 1024,
  });
}

/** A DOCX of `count` tiny entries beside the document. */
export function manyEntriesDocx(count: number): Buffer {
  const empty = deflateRawSync(Buffer.alloc(0));
  const entries: ZipEntrySpec[] = [];
  for (let index = 0; index < count; index += 1) {
    entries.push({ name: `x/${index}`, deflated: { bytes: empty, inflatedSize: 0 } });
  }
  return minimalDocx(['Many parts.'], entries);
}

/**
 * A PDF of `pages` real pages, each with `linesPerPage` lines of text in
 * Helvetica, written object by object (pdf-lib takes seconds for thousands
 * of pages; this takes milliseconds).
 */
export function longPdf(pages: number, linesPerPage = 1): Buffer {
  const objects: string[] = [];
  const add = (object: string) => objects.push(object);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  const pageIds = Array.from({ length: pages }, (_, index) => 4 + index * 2);
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let page = 1; page <= pages; page += 1) {
    const lines = Array.from(
      { length: linesPerPage },
      (_, line) =>
        `1 0 0 1 50 ${750 - line * 14} Tm (Page ${page}, line ${line + 1}: the quick brown fox jumps over the lazy dog.) Tj`,
    ).join('\n');
    const content = `BT /F1 11 Tf\n${lines}\nET`;
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + (page - 1) * 2 + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
  }
  const chunks: string[] = ['%PDF-1.4\n'];
  let length = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const text = `${index + 1} 0 obj\n${object}\nendobj\n`;
    chunks.push(text);
    length += Buffer.byteLength(text, 'latin1');
  });
  chunks.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) chunks.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  chunks.push(
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
  );
  return Buffer.from(chunks.join(''), 'latin1');
}

/** A gzip body of `bytes` zeros (concatenated 1 MiB members, as gzip allows): about 1/1000 of that on the wire. */
export function gzipBomb(bytes: number): Buffer {
  const member = gzipSync(Buffer.alloc(MiB), { level: 9 });
  return Buffer.concat(new Array(Math.ceil(bytes / MiB)).fill(member));
}

/** A brotli body of `bytes` zeros: tens of bytes on the wire. */
export function brotliBomb(bytes: number): Buffer {
  return brotliCompressSync(Buffer.alloc(bytes), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
}

/** A zlib (`Content-Encoding: deflate`) body of `bytes` zeros. */
export function deflateBomb(bytes: number): Buffer {
  return deflateSync(Buffer.alloc(bytes), { level: 9 });
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
