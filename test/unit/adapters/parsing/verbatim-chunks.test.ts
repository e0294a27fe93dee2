import fc from 'fast-check';
import { parseFile } from '../../../../layers/core/adapters/parsing/file-parsers';
import { parseHtmlPage } from '../../../../layers/core/adapters/parsing/html-to-document';
import {
  type ChunkingOptions,
  chunkDocument,
  DEFAULT_CHUNKING,
} from '../../../../layers/core/domain/retrieval/chunker';
import { normalizeWhitespace } from '../../../../layers/core/domain/retrieval/verbatim';
import type { ParsedDocument } from '../../../../layers/core/ports/document.port';

/**
 * Issue 10, verbatim citations (P170, P171): every chunk is a substring of
 * its document's text after the one normalization of whitespace
 * (domain/retrieval/verbatim.ts), and the same text yields the same chunks
 * whether it is crawled as a web page, uploaded as an HTML file or uploaded
 * as a plain-text file.
 */

/** Words that trip sentence segmentation and tokenizers: punctuation runs, code, formulas, other scripts. */
const TRICKY_WORDS = [
  'SP/2,..P/8',
  '(2)',
  'eq.(2)',
  'e.g.',
  'i.e.,',
  'U.S.A.',
  '3.14',
  '1,000.5',
  'x=y+1;',
  'f(x)=x²+√2',
  '∑ᵢ₌₁ⁿ',
  'a<b&&c>d',
  '&amp;',
  '"quoted."',
  '‘single’',
  '—',
  '...',
  '?!',
  'console.log("hi");',
  'if(a){b()}',
  'arr[0]',
  '[3]',
  'http://example.com/a?b=c&d=e.',
  'Dr.',
  'Mr.Smith',
  'end.Next',
  '中文句子。',
  '日本語です。次',
  'Привет, мир.',
  'مرحبا بالعالم.',
  'नमस्ते दुनिया।',
  'क्‍ष',
  'می‌خواهم',
  '👩‍💻',
  '🇫🇷!',
  'ﬁne',
  'café',
  'cafe\u0301',
] as const;

const plainWord = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
const word = fc.oneof({ weight: 3, arbitrary: plainWord }, fc.constantFrom(...TRICKY_WORDS));
/** What stands between two words: nothing at all, spaces, a soft line break, invisible characters. */
const separator = fc.constantFrom(
  ' ',
  ' ',
  ' ',
  '',
  '  ',
  '\n',
  '\t',
  '\u00a0',
  ' \u200b',
  '\u200b',
);

const paragraph = fc
  .array(fc.tuple(word, separator), { minLength: 1, maxLength: 60 })
  .map((parts) => parts.map(([text, sep]) => `${text}${sep}`).join(''));
const documentParagraphs = fc.array(paragraph, { minLength: 1, maxLength: 6 });

const chunking: fc.Arbitrary<ChunkingOptions> = fc.oneof(
  fc.constant(DEFAULT_CHUNKING),
  fc
    .integer({ min: 4, max: 40 })
    .chain((maxTokens) =>
      fc
        .integer({ min: 0, max: maxTokens - 1 })
        .map((overlapTokens) => ({ maxTokens, overlapTokens })),
    ),
);

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The text as a web page: one `<p>` per paragraph, in `<main>` beside a navigation bar. */
function asHtml(paragraphs: readonly string[]): string {
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>Doc</title></head><body>',
    '<nav><a href="/">Home</a></nav><main>',
    ...paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`),
    '</main><footer>© Example</footer></body></html>',
  ].join('\n');
}

/** The text as a file: paragraphs separated by blank lines. */
function asText(paragraphs: readonly string[]): string {
  return paragraphs.join('\n\n');
}

function chunkTexts(document: ParsedDocument, options: ChunkingOptions) {
  return chunkDocument(document, options).map(({ text, headingPath }) => ({ text, headingPath }));
}

describe('Verbatim chunks (issue 10)', () => {
  it('cuts sentences the segmenter splits without a space back as the document wrote them', async () => {
    // The two reported cases: a space was put back between sentences that had none.
    const text = 'Flow was SP/2,..P/8 at rest. As in eq.(2) the rate rises.Then it falls.';
    const document = await parseFile(Buffer.from(text), 'flow.txt', 'text/plain');

    const chunks = chunkDocument(document, { maxTokens: 8, overlapTokens: 2 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(text).toContain(chunk.text);
    expect(chunkDocument(document).map((chunk) => chunk.text)).toEqual([text]);
  });

  it('keeps every chunk a substring of the normalized document text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(documentParagraphs, chunking, async (paragraphs, options) => {
        const source = asText(paragraphs);
        const document = await parseFile(Buffer.from(source), 'doc.txt', 'text/plain');
        const whole = normalizeWhitespace(source);
        for (const chunk of chunkDocument(document, options)) {
          expect(chunk.text.length).toBeGreaterThan(0);
          expect(whole).toContain(normalizeWhitespace(chunk.text));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('cuts the same text into the same chunks crawled as a page, uploaded as HTML or as text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(documentParagraphs, chunking, async (paragraphs, options) => {
        const html = asHtml(paragraphs);
        const crawled = parseHtmlPage(html, 'http://127.0.0.1/doc').document;
        const uploadedHtml = await parseFile(Buffer.from(html), 'doc.html', 'text/html');
        const uploadedText = await parseFile(
          Buffer.from(asText(paragraphs)),
          'doc.txt',
          'text/plain; charset=utf-8',
        );

        const expected = chunkTexts(uploadedText, options);
        expect(chunkTexts(crawled, options)).toEqual(expected);
        expect(chunkTexts(uploadedHtml, options)).toEqual(expected);
        const whole = normalizeWhitespace(asText(paragraphs));
        for (const chunk of expected) expect(whole).toContain(normalizeWhitespace(chunk.text));
      }),
      { numRuns: 60 },
    );
  });
});
