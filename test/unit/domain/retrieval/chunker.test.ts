import fc from 'fast-check';
import {
  type ChunkableDocument,
  chunkDocument,
  documentHash,
  textToEmbed,
} from '../../../../layers/core/domain/retrieval/chunker';
import { countTokens } from '../../../../layers/core/domain/retrieval/tokens';
import type { ParsedDocument } from '../../../../layers/core/ports/document.port';

/** The shape of a document, made into text by `toDocument` with words that never repeat. */
interface SentenceShape {
  readonly words: number;
  /** A "word" far longer than a chunk (think of a URL or a base64 blob). */
  readonly giant: number | null;
}
type DocumentShape = readonly {
  readonly headingPath: readonly string[];
  readonly paragraphs: readonly (readonly SentenceShape[])[];
}[];

const sentenceShape = (maxWords: number) =>
  fc.record({
    words: fc.integer({ min: 1, max: maxWords }),
    giant: fc.option(fc.integer({ min: 100, max: 400 }), { freq: 12 }),
  });

const documentShape = (maxWords: number): fc.Arbitrary<DocumentShape> =>
  fc.array(
    fc.record({
      headingPath: fc.array(fc.constantFrom('Intro', 'Setup', 'Billing', 'FAQ'), { maxLength: 3 }),
      paragraphs: fc.array(fc.array(sentenceShape(maxWords), { minLength: 1, maxLength: 6 }), {
        maxLength: 4,
      }),
    }),
    { minLength: 1, maxLength: 3 },
  );

const VOCABULARY = ['cell', 'protein', 'refund', 'policy', 'gene', 'support', 'invoice', 'trial'];

/**
 * Text for a shape. Every word is different (a common word and a counter),
 * so each chunk can be located in its section's text without ambiguity, and
 * cheap to tokenize (common words and digits are what the tokenizer caches).
 */
function toDocument(shape: DocumentShape): ChunkableDocument {
  let counter = 0;
  const word = () => {
    counter += 1;
    return `${VOCABULARY[counter % VOCABULARY.length]}${counter}`;
  };
  const sentence = ({ words, giant }: SentenceShape) => {
    const body = Array.from({ length: words }, word);
    if (giant !== null) {
      const start = counter;
      counter += giant;
      body.push(Array.from({ length: giant }, (_, i) => start + i).join('-'));
    }
    const first = body[0] ?? 'w';
    const capitalised = `${first[0]?.toUpperCase()}${first.slice(1)}`;
    return `${[capitalised, ...body.slice(1)].join(' ')}.`;
  };
  return {
    title: 'A title',
    url: null,
    sections: shape.map(({ headingPath, paragraphs }) => ({
      headingPath,
      paragraphs: paragraphs.map((sentences) => sentences.map(sentence).join(' ')),
    })),
  };
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

const options = fc
  .record({
    maxTokens: fc.integer({ min: 16, max: 160 }),
    overlapPercent: fc.integer({ min: 0, max: 60 }),
  })
  .map(({ maxTokens, overlapPercent }) => ({
    maxTokens,
    overlapTokens: Math.floor((maxTokens * overlapPercent) / 100),
  }));

describe('Domain: chunkDocument', () => {
  describe('properties', () => {
    it('keeps every chunk within maxTokens, counted exactly', () => {
      fc.assert(
        fc.property(documentShape(40), options, (shape, chunking) => {
          for (const chunk of chunkDocument(toDocument(shape), chunking)) {
            expect(chunk.tokenCount).toBe(countTokens(chunk.text));
            expect(chunk.tokenCount).toBeLessThanOrEqual(chunking.maxTokens);
          }
        }),
        { numRuns: 40 },
      );
    });

    it('chunks sections one by one, each chunk a contiguous run of its text, covering it in order', () => {
      fc.assert(
        fc.property(documentShape(40), options, (shape, chunking) => {
          const doc = toDocument(shape);
          const chunks = chunkDocument(doc, chunking);

          const sectionByChunk = doc.sections.flatMap((section) =>
            chunkDocument({ ...doc, sections: [section] }, chunking).map((chunk) => ({
              section,
              chunk,
            })),
          );
          expect(chunks).toEqual(
            sectionByChunk.map(({ chunk }, position) => ({ ...chunk, position })),
          );

          for (const section of doc.sections) {
            const text = collapse(section.paragraphs.join(' '));
            let start = 0;
            let end = 0;
            for (const { chunk } of sectionByChunk.filter((entry) => entry.section === section)) {
              expect(chunk.headingPath).toEqual(section.headingPath);
              const piece = collapse(chunk.text);
              const at = text.indexOf(piece, start);
              // Found, not before the previous chunk, and leaving no gap (a space at most).
              expect(at).toBeGreaterThanOrEqual(start);
              expect(at).toBeLessThanOrEqual(end + 1);
              start = at;
              end = Math.max(end, at + piece.length);
            }
            expect(end).toBe(text.length);
          }
        }),
        { numRuns: 40 },
      );
    });

    it('cuts only between sentences when every sentence fits in a chunk', () => {
      fc.assert(
        fc.property(
          documentShape(8).map((shape) =>
            shape.map((section) => ({
              ...section,
              paragraphs: section.paragraphs.map((p) => p.map((s) => ({ ...s, giant: null }))),
            })),
          ),
          fc.integer({ min: 40, max: 120 }),
          (shape, maxTokens) => {
            for (const chunk of chunkDocument(toDocument(shape), {
              maxTokens,
              overlapTokens: 10,
            })) {
              expect(chunk.text).toMatch(/^[A-Z]/);
              expect(chunk.text).toMatch(/\.$/);
            }
          },
        ),
        { numRuns: 40 },
      );
    });

    it('is deterministic', () => {
      fc.assert(
        fc.property(documentShape(30), options, (shape, chunking) => {
          const doc = toDocument(shape);
          expect(chunkDocument(doc, chunking)).toEqual(chunkDocument(doc, chunking));
        }),
        { numRuns: 30 },
      );
    });
  });

  it('keeps a paragraph that fits whole, starting a new chunk for it', () => {
    const sentence = (n: number) => `Sentence ${n} is about refunds and returns.`;
    const first = [1, 2, 3].map(sentence).join(' ');
    const second = [4, 5, 6].map(sentence).join(' ');
    const maxTokens = countTokens(`${first}\n\n${sentence(4)}`) + 1;

    const chunks = chunkDocument(
      { title: 't', url: null, sections: [{ headingPath: [], paragraphs: [first, second] }] },
      { maxTokens, overlapTokens: 0 },
    );

    expect(chunks.map((chunk) => chunk.text)).toEqual([first, second]);
  });

  it('repeats the last whole sentences of a chunk, up to overlapTokens, at the start of the next', () => {
    const sentences = Array.from({ length: 12 }, (_, i) => `Claim ${i} concerns protein folding.`);
    const oneSentence = countTokens(sentences[0] ?? '');

    const chunks = chunkDocument(
      {
        title: 't',
        url: null,
        sections: [{ headingPath: ['H'], paragraphs: [sentences.join(' ')] }],
      },
      { maxTokens: oneSentence * 4 + 2, overlapTokens: oneSentence + 1 },
    );

    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i += 1) {
      const previous = chunks[i - 1]?.text ?? '';
      const lastSentence = previous.slice(previous.lastIndexOf('Claim'));
      expect(chunks[i]?.text.startsWith(lastSentence)).toBe(true);
    }
  });

  it('splits a sentence longer than a chunk at word boundaries', () => {
    const long = `${Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ')}.`;

    const chunks = chunkDocument(
      { title: 't', url: null, sections: [{ headingPath: [], paragraphs: [long] }] },
      { maxTokens: 50, overlapTokens: 0 },
    );

    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(long);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(50);
  });

  it('makes no chunks of a document without text', () => {
    const doc = {
      title: 'Empty',
      url: null,
      sections: [
        { headingPath: ['A'], paragraphs: ['', '   \n'] },
        { headingPath: [], paragraphs: [] },
      ],
    };

    expect(chunkDocument(doc)).toEqual([]);
  });

  it('prefixes nothing: no title, no heading in the text', () => {
    const [chunk] = chunkDocument({
      title: 'Refund policy',
      url: 'https://example.com/refunds',
      sections: [{ headingPath: ['Policy', 'Timing'], paragraphs: ['Refunds take 5 days.'] }],
    });

    expect(chunk).toEqual({
      text: 'Refunds take 5 days.',
      headingPath: ['Policy', 'Timing'],
      position: 0,
      tokenCount: countTokens('Refunds take 5 days.'),
    });
  });

  it('refuses options that cannot make progress', () => {
    const doc = { title: 't', url: null, sections: [] };
    expect(() => chunkDocument(doc, { maxTokens: 0, overlapTokens: 0 })).toThrow(RangeError);
    expect(() => chunkDocument(doc, { maxTokens: 10, overlapTokens: 10 })).toThrow(RangeError);
  });

  it('chunks a ParsedDocument as it is', () => {
    const parsed: ParsedDocument = { title: 't', url: null, sections: [] };
    expect(chunkDocument(parsed)).toEqual([]);
  });
});

describe('Domain: documentHash', () => {
  const doc: ChunkableDocument = {
    title: 'Refunds',
    url: 'https://example.com/refunds',
    sections: [{ headingPath: ['Policy'], paragraphs: ['Refunds take 5 days.', 'Ask support.'] }],
  };

  it('is a SHA-256 in hex', () => {
    expect(documentHash(doc)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores whitespace differences and empty paragraphs', () => {
    const reformatted = {
      ...doc,
      title: ' Refunds\n',
      sections: [
        { headingPath: ['Policy '], paragraphs: ['Refunds  take\n5 days.', '', 'Ask support.'] },
        { headingPath: ['Empty'], paragraphs: [] },
      ],
    };
    expect(documentHash(reformatted)).toBe(documentHash(doc));
  });

  it('changes when the text, a heading, the title or the address changes', () => {
    const hash = documentHash(doc);
    expect(documentHash({ ...doc, title: 'Returns' })).not.toBe(hash);
    expect(documentHash({ ...doc, url: null })).not.toBe(hash);
    expect(
      documentHash({
        ...doc,
        sections: [
          { headingPath: ['Other'], paragraphs: ['Refunds take 5 days.', 'Ask support.'] },
        ],
      }),
    ).not.toBe(hash);
    expect(
      documentHash({
        ...doc,
        sections: [
          { headingPath: ['Policy'], paragraphs: ['Refunds take 6 days.', 'Ask support.'] },
        ],
      }),
    ).not.toBe(hash);
  });
});

describe('Domain: textToEmbed', () => {
  it('puts the title and the heading path above the chunk text', () => {
    expect(textToEmbed('Refunds', ['Policy', 'Timing'], 'It takes 5 days.')).toBe(
      'Refunds\nPolicy > Timing\nIt takes 5 days.',
    );
  });

  it('leaves out an empty title or heading path', () => {
    expect(textToEmbed(' ', [], 'Only text.')).toBe('Only text.');
  });
});

describe('Domain: chunkDocument on adversarial text (issue 14)', () => {
  const options = { maxTokens: 300, overlapTokens: 50 };
  const single = (text: string) => ({
    title: 't',
    url: null,
    sections: [{ headingPath: [], paragraphs: [text] }],
  });

  it.each([
    ['a run without spaces', 'x'.repeat(1_000_000)],
    ['a run of emoji', '😀'.repeat(100_000)],
    ['text in a script without spaces', '漢字'.repeat(100_000)],
    ['one huge CSV cell', `a,b,c\n"${'x'.repeat(500_000)}"`],
  ])('cuts %s into chunks that cover it in order, each within maxTokens', (_, text) => {
    // Minutes before counting was bounded (P68); a regression fails on the test timeout.
    const chunks = chunkDocument(single(text), options);

    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text.replace(/\s+/g, ''));
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBeLessThanOrEqual(options.maxTokens);
      expect(chunk.tokenCount).toBe(countTokens(chunk.text));
    }
  });
});

describe('Domain: chunkDocument on a paragraph of megabytes (issue 14)', () => {
  it('segments it window by window: every sentence kept, in order, each chunk within maxTokens', () => {
    // V8 copies the whole input into every segment: minutes and gigabytes before windows (P68).
    const sentence = 'The cat sat on the mat. Mr. Smith went to Washington! Did he? ';
    const text = sentence.repeat(40_000).trim();

    const chunks = chunkDocument(
      { title: 't', url: null, sections: [{ headingPath: [], paragraphs: [text] }] },
      { maxTokens: 300, overlapTokens: 0 },
    );

    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(text);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(300);
  });
});
