import { DocumentTooComplexError } from '../../../layers/core/adapters/parsing/errors';
import { uploadedFileParser } from '../../../layers/core/adapters/parsing/file-parser';
import { parseHtmlPage } from '../../../layers/core/adapters/parsing/html-to-document';
import { chunkDocument } from '../../../layers/core/domain/retrieval/chunker';
import type { ParsedDocument } from '../../../layers/core/ports/document.port';
import { DocumentRefusedError } from '../../../layers/core/ports/document-chunker.port';
import { ParsingProcess } from '../../../lib/local/parsing-process/parsing-process';

const MARKDOWN = Buffer.from(
  '# Refunds\n\nCustomers may ask for a refund within thirty days.\n\n## Exceptions\n\nGift cards are never refunded.\n',
);

const single = (text: string): ParsedDocument => ({
  title: 'big',
  url: null,
  sections: [{ headingPath: [], paragraphs: [text] }],
});

/**
 * P69: on one machine files are parsed and documents chunked in a child
 * process with time and memory limits, so neither can hold the API's event
 * loop or take the runtime down (issue 14).
 */
describe('Class: ParsingProcess (local runtime, P69)', () => {
  const processes: ParsingProcess[] = [];
  function parsing(limits: { timeoutMs: number; memoryMb: number }): ParsingProcess {
    const created = new ParsingProcess(limits);
    processes.push(created);
    return created;
  }
  afterAll(() => Promise.all(processes.map((created) => created.close())));
  // One process for the tests that stay within the limits: starting one costs seconds.
  const standard = parsing({ timeoutMs: 60_000, memoryMb: 512 });

  it('parses and chunks exactly as the cloud does in-process', async () => {
    const subject = standard;

    const parsed = await subject.fileParser.parse(MARKDOWN, 'refunds.md');

    expect(parsed).toEqual(await uploadedFileParser.parse(MARKDOWN, 'refunds.md'));
    if (!parsed.ok) throw new Error('expected a document');
    expect(await subject.chunker.chunk(parsed.document)).toEqual(chunkDocument(parsed.document));
  });

  it('parses a crawled page exactly as the crawler does in process (P201)', async () => {
    const html =
      '<html><head><title>Refunds</title></head><body><nav><a href="/">Home</a></nav><main><h1>Refunds</h1><p>Customers may ask for a refund within thirty days of delivery.</p><a href="/shipping">Shipping</a></main></body></html>';

    const page = await standard.pageParser(html, 'https://shop.example/refunds');

    expect(page).toEqual(parseHtmlPage(html, 'https://shop.example/refunds'));
  });

  it("refuses a page past the parser's limits with the parser's own error (P201)", async () => {
    const html = `<html><body>${'<div>'.repeat(2_000)}deep${'</div>'.repeat(2_000)}</body></html>`;

    const refused = standard.pageParser(html, 'https://shop.example/deep');

    await expect(refused).rejects.toThrow(DocumentTooComplexError);
    await expect(refused).rejects.toThrow(
      (() => {
        try {
          parseHtmlPage(html, 'https://shop.example/deep');
        } catch (error) {
          return (error as Error).message;
        }
        return 'expected the parser to refuse the page';
      })(),
    );
  });

  it('gives back the reason a file cannot be read', async () => {
    const subject = standard;

    const parsed = await subject.fileParser.parse(Buffer.from('not a pdf'), 'broken.pdf');

    expect(parsed).toEqual(await uploadedFileParser.parse(Buffer.from('not a pdf'), 'broken.pdf'));
    expect(parsed.ok).toBe(false);
  });

  it('refuses a document that needs more memory than its limit, then works on in a new process', async () => {
    const subject = parsing({ timeoutMs: 120_000, memoryMb: 64 });

    const refused = subject.chunker.chunk(single('lorem ipsum dolor sit amet. '.repeat(2_000_000)));

    await expect(refused).rejects.toThrow(DocumentRefusedError);
    await expect(refused).rejects.toThrow('chunking needed more than 64 MB of memory');
    const parsed = await subject.fileParser.parse(MARKDOWN, 'refunds.md');
    expect(parsed.ok).toBe(true);
  });

  it('refuses a file that takes longer than its limit, then works on in a new process', async () => {
    // 5 ms: far below what either job takes on any machine (a 30 MiB text file
    // parsed in 0.1 s on a fast one, where a 0.3 s limit let it through).
    const subject = parsing({ timeoutMs: 5, memoryMb: 512 });

    const parsed = await subject.fileParser.parse(Buffer.alloc(30 * 1024 * 1024, 'x'), 'run.txt');
    const chunked = await subject.chunker.chunk(single('x'.repeat(20_000_000))).then(
      () => 'chunked',
      (error: Error) => error.message,
    );

    // Compared by outcome only: a parsed 30 MiB document would flood the report.
    expect(parsed.ok ? 'parsed' : parsed.reason).toBe(
      'could not read "run.txt": took longer than 0.005 s',
    );
    expect(chunked).toBe('chunking took longer than 0.005 s');
  });

  it('runs one job at a time, in order', async () => {
    const subject = standard;
    const texts = ['one. two.', 'three.', 'four. five. six.'];

    const chunks = await Promise.all(texts.map((text) => subject.chunker.chunk(single(text))));

    expect(chunks.map((list) => list.map((chunk) => chunk.text))).toEqual([
      ['one. two.'],
      ['three.'],
      ['four. five. six.'],
    ]);
  });

  it('sends waiting jobs together and refuses only the one over its limit; those after it run in a new process (P200)', async () => {
    const subject = parsing({ timeoutMs: 300, memoryMb: 512 });
    await subject.chunker.chunk(single('warm.')); // starts the process and loads the parsers

    const outcomes = await Promise.allSettled([
      subject.chunker.chunk(single('before. the slow one.')),
      subject.chunker.chunk(single('x'.repeat(20_000_000))),
      subject.chunker.chunk(single('after it.')),
      subject.fileParser.parse(MARKDOWN, 'refunds.md'),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const [before, slow, after, parsed] = outcomes;
    expect(before?.status === 'fulfilled' && before.value.map((chunk) => chunk.text)).toEqual([
      'before. the slow one.',
    ]);
    expect(slow?.status === 'rejected' && slow.reason).toBeInstanceOf(DocumentRefusedError);
    expect(slow?.status === 'rejected' && String(slow.reason)).toContain(
      'chunking took longer than 0.3 s',
    );
    expect(after?.status === 'fulfilled' && after.value.map((chunk) => chunk.text)).toEqual([
      'after it.',
    ]);
    expect(parsed?.status === 'fulfilled' && parsed.value).toEqual(
      await uploadedFileParser.parse(MARKDOWN, 'refunds.md'),
    );
  });

  it('fails jobs once closed', async () => {
    const subject = parsing({ timeoutMs: 60_000, memoryMb: 512 });
    await subject.close();

    await expect(subject.chunker.chunk(single('late.'))).rejects.toThrow('closed');
  });
});
