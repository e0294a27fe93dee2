/**
 * Checks a zip package (DOCX) against the {@link ParseLimits} before any
 * library opens it (P96). The DOCX reader (mammoth, through JSZip) inflates
 * whole entries into memory and believes the package, so a 1 MB file can
 * ask it for gigabytes. Here every entry the central directory lists (the
 * directory JSZip reads) is inflated once as a stream whose output is
 * counted and thrown away, and the package is refused as soon as
 *
 * - the directory lists more than `maxZipEntries` entries, its declared
 *   sizes add up to more than `maxZipInflatedBytes`, or an XML part declares
 *   more than `maxZipXmlPartBytes` (all before inflating anything);
 * - an entry inflates to more than it declares (a lying directory): it is
 *   stopped there, so what the package inflates to never passes what it
 *   declared, which is within the limits.
 *
 * Entries that overlap (the "better zip bomb") are counted once per entry,
 * as a reader inflates them. Memory stays at zlib's window and one output
 * chunk whatever the package says.
 */
import { createInflateRaw } from 'node:zlib';
import { FileParseError } from './errors';
import { FileLimitExceededError, formatBytes, formatCount, type ParseLimits } from './parse-limits';

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const ZIP64_EXTRA_ID = 0x0001;
/** The end record is 22 bytes, followed by a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;
const STORED = 0;
const DEFLATED = 8;
/** Parts the DOCX reader parses as XML. */
const XML_PART = /\.(?:xml|rels)$/i;

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly declaredSize: number;
  readonly localHeaderOffset: number;
}

/**
 * Refuses `bytes` (a zip package) that breaks a limit, by inflating every
 * entry under a byte budget.
 *
 * @throws {FileLimitExceededError} over a limit, naming it.
 * @throws {FileParseError} when the package is damaged (or lies about its sizes).
 */
export async function checkZipPackage(
  bytes: Buffer,
  filename: string,
  limits: ParseLimits,
): Promise<void> {
  const entries = centralDirectory(bytes, filename, limits);
  const declared = entries.reduce((sum, entry) => sum + entry.declaredSize, 0);
  if (declared > limits.maxZipInflatedBytes) {
    throw new FileLimitExceededError(
      filename,
      'maxZipInflatedBytes',
      `it unzips to ${formatCount(declared)} bytes, more than the ${formatBytes(limits.maxZipInflatedBytes)} allowed`,
    );
  }
  // The declared sizes are within the limit; each entry may inflate to its own and no more.
  const oversized = entries.find(
    (entry) => XML_PART.test(entry.name) && entry.declaredSize > limits.maxZipXmlPartBytes,
  );
  if (oversized) throw partTooLarge(filename, oversized, limits);
  for (const entry of entries) {
    if ((await inflatedSize(bytes, entry, entry.declaredSize, filename)) === 'over') {
      throw new FileParseError(
        filename,
        `a damaged package: "${safeName(entry.name)}" unzips to more than the ${formatCount(entry.declaredSize)} bytes it declares`,
      );
    }
  }
}

function partTooLarge(filename: string, entry: ZipEntry, limits: ParseLimits) {
  return new FileLimitExceededError(
    filename,
    'maxZipXmlPartBytes',
    `its part "${safeName(entry.name)}" unzips to more than the ${formatBytes(limits.maxZipXmlPartBytes)} allowed for one part`,
  );
}

/** The central directory's entries, refused past `maxZipEntries` before they are read. */
function centralDirectory(bytes: Buffer, filename: string, limits: ParseLimits): ZipEntry[] {
  const damaged = (detail: string) =>
    new FileParseError(filename, `not a readable DOCX file (${detail})`);
  const end = findEndRecord(bytes);
  if (end < 0) throw damaged('no end of central directory');
  let count = bytes.readUInt16LE(end + 10);
  let offset = bytes.readUInt32LE(end + 16);
  const locator = end - 20;
  if (locator >= 0 && bytes.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE) {
    const record = safeNumber(bytes.readBigUInt64LE(locator + 8));
    if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== ZIP64_EOCD_SIGNATURE) {
      throw damaged('bad zip64 end record');
    }
    count = safeNumber(bytes.readBigUInt64LE(record + 32));
    offset = safeNumber(bytes.readBigUInt64LE(record + 48));
  }
  if (count > limits.maxZipEntries) throw tooManyEntries(filename, count, limits);

  const entries: ZipEntry[] = [];
  let at = offset;
  // The count in the end record may lie too: the directory is walked to its real end.
  while (at + 46 <= bytes.length && bytes.readUInt32LE(at) === CENTRAL_SIGNATURE) {
    if (entries.length >= limits.maxZipEntries) {
      throw tooManyEntries(filename, entries.length + 1, limits);
    }
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const extra = bytes.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    const sizes = zip64Sizes(extra, {
      declaredSize: bytes.readUInt32LE(at + 24),
      compressedSize: bytes.readUInt32LE(at + 20),
      localHeaderOffset: bytes.readUInt32LE(at + 42),
    });
    entries.push({ name, method: bytes.readUInt16LE(at + 10), ...sizes });
    at += 46 + nameLength + extraLength + commentLength;
  }
  if (entries.length === 0 && count > 0) throw damaged('no central directory');
  return entries;
}

function tooManyEntries(filename: string, count: number, limits: ParseLimits) {
  return new FileLimitExceededError(
    filename,
    'maxZipEntries',
    `its package holds ${formatCount(count)} entries or more, over the ${formatCount(limits.maxZipEntries)} allowed`,
  );
}

/** Sizes and offset marked 0xFFFFFFFF are in the zip64 extra field, in this order. */
function zip64Sizes(
  extra: Buffer,
  fields: { declaredSize: number; compressedSize: number; localHeaderOffset: number },
): { declaredSize: number; compressedSize: number; localHeaderOffset: number } {
  const result = { ...fields };
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (id === ZIP64_EXTRA_ID) {
      let field = at + 4;
      for (const key of ['declaredSize', 'compressedSize', 'localHeaderOffset'] as const) {
        if (result[key] === 0xffffffff && field + 8 <= at + 4 + size) {
          result[key] = safeNumber(extra.readBigUInt64LE(field));
          field += 8;
        }
      }
      break;
    }
    at += 4 + size;
  }
  return result;
}

function findEndRecord(bytes: Buffer): number {
  const stop = Math.max(0, bytes.length - EOCD_SEARCH);
  for (let at = bytes.length - 22; at >= stop; at -= 1) {
    if (bytes.readUInt32LE(at) === EOCD_SIGNATURE) return at;
  }
  return -1;
}

/** Past 2^53 no size is real; it is clamped so comparisons still refuse it. */
function safeNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/**
 * Inflates one entry, counting and discarding its output; `'over'` as soon
 * as the output passes `budget` (the stream is destroyed there).
 */
function inflatedSize(
  bytes: Buffer,
  entry: ZipEntry,
  budget: number,
  filename: string,
): Promise<number | 'over'> {
  const damaged = (detail: string) =>
    new FileParseError(filename, `not a readable DOCX file (${safeName(entry.name)}: ${detail})`);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || bytes.readUInt32LE(header) !== LOCAL_SIGNATURE) {
    return Promise.reject(damaged('bad local header'));
  }
  const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (data.length < entry.compressedSize) return Promise.reject(damaged('truncated'));
  if (entry.method === STORED) return Promise.resolve(data.length > budget ? 'over' : data.length);
  if (entry.method !== DEFLATED) return Promise.reject(damaged('unsupported compression'));

  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw();
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      outcome();
    };
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) settle(() => resolve('over'));
    });
    inflater.on('end', () => settle(() => resolve(size)));
    inflater.on('error', () => settle(() => reject(damaged('invalid compressed data'))));
    inflater.end(data);
  });
}

/** An entry name fit for a message: printable, at most 100 characters. */
function safeName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const printable = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return printable.length > 100 ? `${printable.slice(0, 100)}…` : printable;
}
