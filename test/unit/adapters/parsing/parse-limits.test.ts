import fc from 'fast-check';
import { FileParseError } from '../../../../layers/core/adapters/parsing/errors';
import { uploadedFileParser } from '../../../../layers/core/adapters/parsing/file-parser';
import { parseFile } from '../../../../layers/core/adapters/parsing/file-parsers';
import {
  FileLimitExceededError,
  PARSE_LIMITS,
} from '../../../../layers/core/adapters/parsing/parse-limits';
import { checkZipPackage } from '../../../../layers/core/adapters/parsing/zip-budget';
import {
  honestZipBombDocx,
  longPdf,
  lyingZipBombDocx,
  manyEntriesDocx,
  minimalDocx,
  zerosDeflated,
} from '../../../support/hostile-files';

const MiB = 1024 * 1024;

/** External memory (Buffers, zlib output) grown while `work` ran: what a bomb would blow up. */
async function externalGrowth(work: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().arrayBuffers;
  let peak = before;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }, 1);
  try {
    await work().catch(() => undefined);
  } finally {
    clearInterval(sample);
  }
  return Math.max(peak, process.memoryUsage().arrayBuffers) - before;
}

/**
 * Issue 13 / P95–P97: hostile files are refused by the parsers with a reason
 * naming the limit, before or while the work they would cause is done.
 */
describe('Parse limits (issue 13, P95)', () => {
  describe('DOCX and zip packages (P96)', () => {
    it('reads an ordinary package, media included', async () => {
      const bytes = minimalDocx(
        ['First paragraph.', 'Second paragraph.'],
        [{ name: 'word/media/image1.png', data: Buffer.alloc(2 * MiB, 7) }],
      );
      const document = await parseFile(bytes, 'ok.docx');
      expect(document.sections[0]?.paragraphs).toEqual(['First paragraph.', 'Second paragraph.']);
    });

    it('refuses a zip bomb by its declared size before inflating anything', async () => {
      // Prepare: 300 MiB of zeros in 300 KB
      const bomb = honestZipBombDocx(300 * MiB);
      expect(bomb.length).toBeLessThan(400_000);

      // Act
      const growth = await externalGrowth(() => parseFile(bomb, 'bomb.docx'));

      // Assess
      await expect(parseFile(bomb, 'bomb.docx')).rejects.toMatchObject({
        limit: 'maxZipInflatedBytes',
        message: expect.stringContaining('more than the 256 MiB allowed'),
      });
      expect(growth).toBeLessThan(64 * MiB);
    });

    it('stops a bomb whose central directory lies at the size it declares', async () => {
      // Prepare: word/document.xml says 1 KiB in both headers and inflates to 1 GiB
      const bomb = lyingZipBombDocx(1024 * MiB);

      // Act
      const growth = await externalGrowth(() => parseFile(bomb, 'liar.docx'));

      // Assess
      await expect(parseFile(bomb, 'liar.docx')).rejects.toThrow(
        'could not read "liar.docx": a damaged package: "word/document.xml" unzips to more than the 1,024 bytes it declares',
      );
      expect(growth).toBeLessThan(64 * MiB);
    });

    it('refuses more entries than allowed before reading them', async () => {
      const bytes = manyEntriesDocx(PARSE_LIMITS.maxZipEntries);
      await expect(parseFile(bytes, 'parts.docx')).rejects.toMatchObject({
        limit: 'maxZipEntries',
        message: expect.stringContaining('over the 10,000 allowed'),
      });
    });

    it('refuses an XML part larger than one part may be, even when the package is within its total', async () => {
      const bytes = minimalDocx([], [], {
        name: 'word/document.xml',
        deflated: zerosDeflated(PARSE_LIMITS.maxZipXmlPartBytes + 1),
      });
      await expect(parseFile(bytes, 'xml.docx')).rejects.toMatchObject({
        limit: 'maxZipXmlPartBytes',
        message: expect.stringContaining('"word/document.xml" unzips to more than the 32 MiB'),
      });
    });

    it('counts overlapping entries once each, as a reader inflates them', async () => {
      // Prepare: 300 directory entries all pointing at the same 1 MiB deflated stream ("better zip bomb")
      const single = minimalDocx(
        ['x'],
        [{ name: 'word/media/a.bin', deflated: zerosDeflated(MiB) }],
      );
      const limits = { ...PARSE_LIMITS, maxZipInflatedBytes: 100 * MiB };
      const overlapping = withDuplicatedLastEntry(single, 300);

      // Act + Assess
      await expect(checkZipPackage(overlapping, 'overlap.docx', limits)).rejects.toMatchObject({
        limit: 'maxZipInflatedBytes',
      });
      await expect(checkZipPackage(single, 'single.docx', limits)).resolves.toBeUndefined();
    });

    it('never fails otherwise than by refusing, whatever bytes of the package are changed', async () => {
      const original = minimalDocx(
        ['Some text to keep.'],
        [{ name: 'word/media/a.bin', data: Buffer.alloc(4096, 1) }],
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(original.length - 1), fc.integer({ min: 0, max: 255 })), {
            minLength: 1,
            maxLength: 8,
          }),
          async (flips) => {
            const bytes = Buffer.from(original);
            for (const [at, value] of flips) bytes[at] = value;
            const outcome = await checkZipPackage(bytes, 'fuzz.docx', PARSE_LIMITS).then(
              () => 'ok',
              (error: unknown) => error,
            );
            expect(
              outcome === 'ok' ||
                outcome instanceof FileParseError ||
                outcome instanceof FileLimitExceededError,
            ).toBe(true);
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  describe('PDF (P97)', () => {
    it('refuses a PDF of more pages than allowed, counted before any page is read', async () => {
      const pdf = longPdf(PARSE_LIMITS.maxPdfPages + 1);
      await expect(parseFile(pdf, 'long.pdf')).rejects.toMatchObject({
        limit: 'maxPdfPages',
        message: 'refused "long.pdf": it has 2,001 pages, over the 2,000 allowed',
      });
    });

    it('stops reading pages once the text passes the limit per file', async () => {
      const pdf = longPdf(20, 10);
      const limits = { ...PARSE_LIMITS, maxTextChars: 5_000 };
      await expect(parseFile(pdf, 'wordy.pdf', undefined, limits)).rejects.toMatchObject({
        limit: 'maxTextChars',
        message: expect.stringContaining('more than 5,000 characters of text'),
      });
      expect((await parseFile(pdf, 'wordy.pdf')).sections).toHaveLength(20);
    });
  });

  describe('CSV (P97)', () => {
    it('refuses a cell over the limit, naming its row and column', async () => {
      const csv = Buffer.from(
        `name,notes\nok,short\nbig,"${'x'.repeat(PARSE_LIMITS.maxCsvCellChars + 1)}"\n`,
      );
      await expect(parseFile(csv, 'cells.csv')).rejects.toMatchObject({
        limit: 'maxCsvCellChars',
        message: expect.stringContaining('the cell in row 3, column 2 holds more than 1,048,576'),
      });
    });

    it('refuses more rows than allowed and more columns than allowed', async () => {
      const rows = Buffer.from(`a,b\n${'1,2\n'.repeat(11)}`);
      await expect(
        parseFile(rows, 'rows.csv', undefined, { ...PARSE_LIMITS, maxCsvRows: 10 }),
      ).rejects.toMatchObject({ limit: 'maxCsvRows' });
      const wide = Buffer.from(`${Array.from({ length: 16_385 }, (_, i) => `c${i}`).join(',')}\n`);
      await expect(parseFile(wide, 'wide.csv')).rejects.toMatchObject({
        limit: 'maxCsvColumns',
        message: expect.stringContaining('row 1 has 16,385 columns'),
      });
    });

    it("counts a CSV's cells against the text limit, not the column names added to every row", async () => {
      // 200 rows of 10 characters of cells, 40 with their labels
      const csv = Buffer.from(
        `a_long_column_name,another_long_name\n${'12345,67890\n'.repeat(200)}`,
      );
      const limits = { ...PARSE_LIMITS, maxTextChars: 2_100 };
      await expect(parseFile(csv, 'labels.csv', undefined, limits)).resolves.toBeDefined();
      await expect(
        parseFile(csv, 'labels.csv', undefined, { ...limits, maxTextChars: 1_500 }),
      ).rejects.toMatchObject({ limit: 'maxTextChars' });
    });

    it('reads a CSV within the limits as before', async () => {
      const document = await parseFile(Buffer.from('a,b\n1,2\n\n3,\n'), 'ok.csv');
      expect(document.sections).toEqual([{ headingPath: [], paragraphs: ['a: 1; b: 2', 'a: 3'] }]);
    });
  });

  describe('Text per file (P95)', () => {
    it('refuses any format whose text passes the limit', async () => {
      const limits = { ...PARSE_LIMITS, maxTextChars: 1_000 };
      const text = Buffer.from('word '.repeat(300));
      await expect(parseFile(text, 'long.txt', undefined, limits)).rejects.toMatchObject({
        limit: 'maxTextChars',
      });
      const docx = minimalDocx([`${'word '.repeat(300)}`]);
      await expect(parseFile(docx, 'long.docx', undefined, limits)).rejects.toMatchObject({
        limit: 'maxTextChars',
      });
    });

    it('is an outcome of the file parser port: the file is refused with the reason, not retried', async () => {
      const outcome = await uploadedFileParser.parse(honestZipBombDocx(300 * MiB), 'bomb.docx');
      expect(outcome).toEqual({
        ok: false,
        reason: expect.stringMatching(
          /^refused "bomb\.docx": it unzips to [\d,]+ bytes, more than the 256 MiB allowed$/,
        ),
      });
    });
  });
});

/**
 * The package with its last central directory entry repeated `copies` more
 * times (each pointing at the same data), the end record updated.
 */
function withDuplicatedLastEntry(zip: Buffer, copies: number): Buffer {
  const end = zip.length - 22;
  const count = zip.readUInt16LE(end + 10);
  const directorySize = zip.readUInt32LE(end + 12);
  const directoryOffset = zip.readUInt32LE(end + 16);
  let at = directoryOffset;
  let last = at;
  for (let index = 0; index < count; index += 1) {
    last = at;
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  const lastEntry = zip.subarray(last, at);
  const record = Buffer.from(zip.subarray(end));
  record.writeUInt16LE(count + copies, 8);
  record.writeUInt16LE(count + copies, 10);
  record.writeUInt32LE(directorySize + lastEntry.length * copies, 12);
  return Buffer.concat([
    zip.subarray(0, end),
    ...new Array<Buffer>(copies).fill(lastEntry),
    record,
  ]);
}
