/**
 * Uploaded files to {@link ParsedDocument}s (PDF, DOCX, HTML, Markdown,
 * plain text, CSV). Formats with structure go through HTML so that headings
 * become heading paths the same way for every format.
 *
 * Libraries, all pure JavaScript (nothing downloaded or compiled at install):
 * - PDF: `unpdf`, a maintained packaging of Mozilla's PDF.js for servers
 *   (no worker, no canvas needed for text);
 * - DOCX: `mammoth`, which maps Word styles to semantic HTML (headings
 *   survive), the long-standing choice for DOCX text;
 * - Markdown: `markdown-it`, CommonMark-compliant and maintained, with a
 *   CommonJS build (marked is ESM-only);
 * - CSV: `csv-parse`, the node-csv project's parser (RFC 4180 quoting,
 *   BOMs, ragged rows).
 *
 * Each is loaded at the first file of its type (parser-libraries.ts).
 */
import type { getDocumentProxy } from 'unpdf';
import { detectFileType, type FileType } from '../../domain/file-types';
import { normalizeWhitespace } from '../../domain/retrieval/verbatim';
import type { ParsedDocument, ParsedSection } from '../../ports/document.port';
import { DocumentTooComplexError, FileParseError, UnsupportedFileTypeError } from './errors';
import { htmlToDocument } from './html-to-document';
import {
  FileLimitExceededError,
  formatCount,
  PARSE_LIMITS,
  type ParseLimits,
  TextBudget,
} from './parse-limits';
import {
  loadCsvLibrary,
  loadDocxLibrary,
  loadMarkdownRenderer,
  loadPdfLibrary,
} from './parser-libraries';
import { charsetOf, decodeHtml, decodeText } from './text-decoding';
import { checkZipPackage } from './zip-budget';

/**
 * Parses an uploaded file. The type comes from the file name, else the
 * declared content type ({@link detectFileType}); the bytes overrule
 * both where they are unambiguous (a PDF header, a ZIP package that is not
 * a DOCX).
 *
 * Every file is parsed under {@link PARSE_LIMITS} (P95): a DOCX's package
 * is checked and inflated under a byte budget before mammoth opens it, a
 * PDF's pages and a CSV's rows and cells are counted as they are read, and
 * the text any file yields is capped.
 *
 * @throws {UnsupportedFileTypeError} for any other type.
 * @throws {FileParseError} when a file of an accepted type cannot be read.
 * @throws {FileLimitExceededError} when the file is over one of the limits.
 *
 * @example
 * const document = await parseFile(bytes, 'handbook.docx');
 * document.sections[0]?.headingPath; // ['Introduction']
 */
export async function parseFile(
  bytes: Buffer,
  filename: string,
  contentType?: string,
  limits: ParseLimits = PARSE_LIMITS,
): Promise<ParsedDocument> {
  const type = sniffedType(bytes, detectFileType(filename, contentType));
  if (type === undefined) throw new UnsupportedFileTypeError(filename, contentType);
  try {
    const document = await parseAs(type, bytes, filename, contentType, limits);
    // PDF and CSV count their text as they read it (a CSV its cells, not the column
    // names repeated on every row); every other format is counted here, whole.
    if (type !== 'pdf' && type !== 'csv') {
      new TextBudget(filename, limits.maxTextChars).spend(textLength(document));
    }
    return document;
  } catch (error) {
    if (error instanceof DocumentTooComplexError) {
      throw new FileParseError(filename, error.message, { cause: error });
    }
    throw error;
  }
}

async function parseAs(
  type: FileType,
  bytes: Buffer,
  filename: string,
  contentType: string | undefined,
  limits: ParseLimits,
): Promise<ParsedDocument> {
  const title = stemOf(filename);
  switch (type) {
    case 'pdf':
      return pdfToDocument(bytes, filename, limits);
    case 'docx':
      await checkZipPackage(bytes, filename, limits);
      return docxToDocument(bytes, filename);
    case 'html':
      return htmlToDocument(decodeHtml(bytes, contentType), null, {
        fallbackTitle: title,
        page: true,
      });
    case 'markdown':
      return markdownToDocument(decodeText(bytes, charsetOf(contentType)), title);
    case 'text':
      return textToDocument(decodeText(bytes, charsetOf(contentType)), title, null);
    case 'csv':
      return csvToDocument(decodeText(bytes, charsetOf(contentType)), filename, limits);
  }
}

/** Characters of text in a document: its title and every heading and paragraph. */
function textLength(document: ParsedDocument): number {
  let length = document.title.length;
  for (const section of document.sections) {
    for (const heading of section.headingPath) length += heading.length;
    for (const paragraph of section.paragraphs) length += paragraph.length;
  }
  return length;
}

/**
 * Plain text: paragraphs are separated by blank lines; within one, a line
 * break is a soft wrap, and whitespace is collapsed as for a web page's
 * paragraph (domain/retrieval/verbatim.ts). The same text as a page or as a
 * file is then the same paragraphs, cut into the same chunks (issue 10).
 * No headings, so one section.
 */
export function textToDocument(text: string, title: string, url: string | null): ParsedDocument {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\f\v\u00a0]*\n/)
    .map(normalizeWhitespace)
    .filter((paragraph) => paragraph !== '');
  return { title, url, sections: paragraphs.length > 0 ? [{ headingPath: [], paragraphs }] : [] };
}

/** The file name without directories and its last extension: `docs/Q3 report.pdf` → `Q3 report`. */
function stemOf(filename: string): string {
  const base = filename.split(/[\\/]/).at(-1) ?? filename;
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.trim() === '' ? 'Untitled' : stem.trim();
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04] as const;

/**
 * The bytes win where they are unambiguous: a file starting with `%PDF-` is
 * a PDF whatever the name says; a ZIP package is only accepted as a DOCX (an
 * XLSX or ODT renamed `.txt` must not be indexed as text).
 */
function sniffedType(bytes: Buffer, declared: FileType | undefined): FileType | undefined {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  // Readers accept a header after some junk within the first KiB; only trusted when
  // nothing else is known, as a text file may well mention "%PDF-".
  if (declared === undefined && bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  const isZip = ZIP_MAGIC.every((byte, index) => bytes[index] === byte);
  if (isZip) return declared === 'docx' ? 'docx' : undefined;
  return declared;
}

/**
 * Vertical gap between two lines, in font sizes, above which they belong to
 * different paragraphs. Body text is set at 1.2–1.4× its size; a blank line
 * or paragraph spacing makes the gap larger.
 */
const PDF_PARAGRAPH_GAP = 1.5;

type PdfLine = { text: string; y: number; size: number };

async function pdfToDocument(
  bytes: Buffer,
  filename: string,
  limits: ParseLimits,
): Promise<ParsedDocument> {
  const { getDocumentProxy } = await loadPdfLibrary();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), {
      // Fonts are never rendered: no font code evaluation, no system fonts.
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      // Errors only: PDF.js warns (to the console) about every font it does not render.
      verbosity: 0,
    });
  } catch (error) {
    throw new FileParseError(filename, 'not a readable PDF (damaged or password-protected)', {
      cause: error,
    });
  }
  try {
    // Counted from the page tree before any page is read.
    if (pdf.numPages > limits.maxPdfPages) {
      throw new FileLimitExceededError(
        filename,
        'maxPdfPages',
        `it has ${formatCount(pdf.numPages)} pages, over the ${formatCount(limits.maxPdfPages)} allowed`,
      );
    }
    const budget = new TextBudget(filename, limits.maxTextChars);
    const sections: ParsedSection[] = [];
    let firstLine: string | undefined;
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber += 1) {
      const page = await pdf.getPage(pageNumber);
      const content = await page.getTextContent();
      const lines = pdfLines(content.items);
      firstLine ??= lines.find((line) => line.text !== '')?.text;
      const paragraphs = pdfParagraphs(lines);
      page.cleanup();
      budget.spend(paragraphs.reduce((sum, paragraph) => sum + paragraph.length, 0));
      // No headings in a PDF's text layer; the page number is what a citation needs.
      if (paragraphs.length > 0) sections.push({ headingPath: [`Page ${pageNumber}`], paragraphs });
    }
    const title = (await pdfTitle(pdf)) ?? firstLine?.slice(0, 200) ?? stemOf(filename);
    return { title, url: null, sections };
  } catch (error) {
    if (error instanceof FileLimitExceededError) throw error;
    throw new FileParseError(filename, 'the PDF could not be read to the end', { cause: error });
  } finally {
    await pdf.destroy();
  }
}

async function pdfTitle(
  pdf: Awaited<ReturnType<typeof getDocumentProxy>>,
): Promise<string | undefined> {
  const { info, metadata } = await pdf.getMetadata();
  const fromInfo = (info as { Title?: unknown }).Title;
  const candidates = [fromInfo, metadata?.get('dc:title')];
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && candidate.trim() !== '') {
      return candidate.replace(/\s+/g, ' ').trim();
    }
  }
  return undefined;
}

/** PDF.js text items to lines: an item with `hasEOL` ends a line. */
function pdfLines(items: readonly unknown[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: PdfLine | undefined;
  for (const item of items) {
    if (typeof item !== 'object' || item === null || !('str' in item)) continue; // marked content
    const { str, transform, hasEOL } = item as {
      str: string;
      transform: number[];
      hasEOL: boolean;
    };
    const [a = 0, b = 0, , , , y = 0] = transform;
    if (current === undefined) current = { text: '', y, size: Math.hypot(a, b) };
    current.text += str;
    current.size = Math.max(current.size, Math.hypot(a, b));
    if (hasEOL) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current) lines.push(current);
  return lines.map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }));
}

/**
 * Lines to paragraphs: a blank line or a gap wider than
 * {@link PDF_PARAGRAPH_GAP} font sizes starts a new one. Lines are joined
 * with a space, or without the hyphen where a word was broken across them.
 */
function pdfParagraphs(lines: readonly PdfLine[]): string[] {
  const paragraphs: string[] = [];
  let text = '';
  let previous: PdfLine | undefined;
  for (const line of lines) {
    const gap = previous ? Math.abs(previous.y - line.y) : 0;
    const size = Math.max(previous?.size ?? 0, line.size, 1);
    if (line.text === '' || (previous && gap > PDF_PARAGRAPH_GAP * size)) {
      if (text !== '') paragraphs.push(text);
      text = '';
    }
    if (line.text !== '') {
      text = text === '' ? line.text : joinLines(text, line.text);
      previous = line;
    }
  }
  if (text !== '') paragraphs.push(text);
  return paragraphs;
}

function joinLines(before: string, after: string): string {
  return /\p{L}-$/u.test(before) && /^\p{Ll}/u.test(after)
    ? `${before.slice(0, -1)}${after}`
    : `${before} ${after}`;
}

/**
 * Word's "Title" paragraph style becomes the first `<h1>`, which
 * {@link htmlToDocument} takes as the title; mammoth maps the Heading styles
 * itself.
 */
const DOCX_STYLE_MAP = ["p[style-name='Title'] => h1:fresh"];

/**
 * Mammoth (and the XML parser it brings) loads at the first DOCX,
 * shipped beside the workers' `index.js`, so the XML parser can be a package
 * the SSO function loads on first use too.
 */
async function docxToDocument(bytes: Buffer, filename: string): Promise<ParsedDocument> {
  const mammoth = await loadDocxLibrary();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: bytes },
      {
        styleMap: DOCX_STYLE_MAP,
        // Linked files would be read from this machine's disk: never.
        externalFileAccess: false,
        // Images carry no text; not embedding them as data URLs keeps the HTML small.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    html = result.value;
  } catch (error) {
    throw new FileParseError(filename, 'not a readable DOCX file', { cause: error });
  }
  return htmlToDocument(html, null, { fallbackTitle: stemOf(filename) });
}

/**
 * Markdown: a YAML front matter `title:` wins, else the first `# heading`,
 * else the file name.
 */
async function markdownToDocument(source: string, fallbackTitle: string): Promise<ParsedDocument> {
  const markdown = await loadMarkdownRenderer();
  const { body, title } = frontMatter(source);
  const document = htmlToDocument(markdown.render(body), null, {
    fallbackTitle,
    markInlineCode: true,
  });
  return title === undefined ? document : { ...document, title };
}

/** Splits off a leading `---` … `---` block and reads its `title:` (a simple scalar). */
function frontMatter(source: string): { body: string; title?: string } {
  const match = /^\ufeff?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return { body: source };
  const body = source.slice(match[0].length);
  const line = /^title:[ \t]*(.+?)[ \t]*$/m.exec(match[1] ?? '');
  const raw = line?.[1]?.replace(/^(["'])(.*)\1$/, '$2').trim();
  return raw ? { body, title: raw } : { body };
}

/** Delimiters tried on the header line, in order of preference on a tie. */
const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * CSV: the first row names the columns; every other row becomes one
 * paragraph `column: value; column: value` (empty cells left out), so each
 * row can be retrieved on its own with its meaning attached. Rows are turned
 * into paragraphs as the parser yields them (no table of every row is kept),
 * and each is checked against the row, column and cell limits there.
 */
async function csvToDocument(
  text: string,
  filename: string,
  limits: ParseLimits,
): Promise<ParsedDocument> {
  let columns: string[] | undefined;
  let rows = 0;
  const paragraphs: string[] = [];
  const { parse: parseCsv } = await loadCsvLibrary();
  const budget = new TextBudget(filename, limits.maxTextChars);
  const onRecord = (record: string[]): null => {
    rows += 1;
    checkCsvRecord(record, rows, filename, limits);
    if (columns === undefined) {
      columns = record.map((name, index) => (name === '' ? `column ${index + 1}` : name));
      return null;
    }
    const header = columns;
    const paragraph = record
      .map((value, index) =>
        value === '' ? '' : `${header[index] ?? `column ${index + 1}`}: ${value}`,
      )
      .filter((cell) => cell !== '')
      .join('; ');
    // The file's own text: its cells (the labels added to each are ours).
    budget.spend(record.reduce((sum, cell) => sum + cell.length, 0));
    if (paragraph !== '') paragraphs.push(paragraph);
    return null;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      parseCsv(
        text,
        {
          delimiter: csvDelimiter(text),
          bom: true,
          relax_column_count: true,
          relax_quotes: true,
          skip_empty_lines: true,
          trim: true,
          on_record: onRecord,
        },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  } catch (error) {
    // csv-parse hands back what `on_record` threw, wrapped or not.
    const limit = error instanceof FileLimitExceededError ? error : causeOf(error);
    if (limit) throw limit;
    throw new FileParseError(filename, 'not a readable CSV file', { cause: error });
  }
  return {
    title: stemOf(filename),
    url: null,
    sections: paragraphs.length > 0 ? [{ headingPath: [], paragraphs }] : [],
  };
}

function causeOf(error: unknown): FileLimitExceededError | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof FileLimitExceededError ? cause : undefined;
}

/** Refuses the file at the first record over the row, column or cell limit. */
function checkCsvRecord(
  record: readonly string[],
  row: number,
  filename: string,
  limits: ParseLimits,
): void {
  if (row > limits.maxCsvRows) {
    throw new FileLimitExceededError(
      filename,
      'maxCsvRows',
      `it has more than ${formatCount(limits.maxCsvRows)} rows (the limit per file)`,
    );
  }
  if (record.length > limits.maxCsvColumns) {
    throw new FileLimitExceededError(
      filename,
      'maxCsvColumns',
      `row ${formatCount(row)} has ${formatCount(record.length)} columns, over the ${formatCount(limits.maxCsvColumns)} allowed`,
    );
  }
  const column = record.findIndex((cell) => cell.length > limits.maxCsvCellChars);
  if (column >= 0) {
    throw new FileLimitExceededError(
      filename,
      'maxCsvCellChars',
      `the cell in row ${formatCount(row)}, column ${formatCount(column + 1)} holds more than ${formatCount(limits.maxCsvCellChars)} characters (the limit per cell)`,
    );
  }
}

/** The delimiter that occurs most often in the first line (quoted text included; good enough for headers). */
function csvDelimiter(text: string): string {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  let best: string = CSV_DELIMITERS[0];
  let bestCount = 0;
  for (const delimiter of CSV_DELIMITERS) {
    const count = firstLine.split(delimiter).length - 1;
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}
