import { Document as DocxDocument, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import {
  FileParseError,
  UnsupportedFileTypeError,
} from '../../../../layers/core/adapters/parsing/errors';
import { parseFile, textToDocument } from '../../../../layers/core/adapters/parsing/file-parsers';

/** A real PDF, written by pdf-lib: each page a list of lines at given heights (points from the bottom). */
async function pdfOf(
  pages: readonly (readonly { text: string; y: number }[])[],
  title?: string,
): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  if (title) pdf.setTitle(title);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([612, 792]);
    for (const line of lines) page.drawText(line.text, { x: 72, y: line.y, size: 12, font });
  }
  return Buffer.from(await pdf.save());
}

/** A real DOCX, written by the docx library. */
async function docxOf(paragraphs: Paragraph[]): Promise<Buffer> {
  const document = new DocxDocument({ sections: [{ children: paragraphs }] });
  return Packer.toBuffer(document);
}

describe('Function: parseFile', () => {
  describe('PDF', () => {
    it('reads page text into one section per page, paragraphs by spacing, title from metadata', async () => {
      // Prepare: 14 pt between lines of a paragraph, a wider gap between paragraphs.
      const bytes = await pdfOf(
        [
          [
            { text: 'Refund policy', y: 720 },
            { text: 'Customers may ask for a refund within', y: 680 },
            { text: 'thirty days of purchase. The refund is', y: 666 },
            { text: 'paid to the original card.', y: 652 },
            { text: 'Shipping costs are not refun-', y: 610 },
            { text: 'ded.', y: 596 },
          ],
          [{ text: 'Page two text.', y: 720 }],
          [],
        ],
        'Customer Handbook',
      );

      // Act
      const document = await parseFile(bytes, 'handbook.pdf', 'application/pdf');

      // Assess
      expect(document).toEqual({
        title: 'Customer Handbook',
        url: null,
        sections: [
          {
            headingPath: ['Page 1'],
            paragraphs: [
              'Refund policy',
              'Customers may ask for a refund within thirty days of purchase. The refund is paid to the original card.',
              'Shipping costs are not refunded.',
            ],
          },
          { headingPath: ['Page 2'], paragraphs: ['Page two text.'] },
        ],
      });
    });

    it('takes the first line as the title when the metadata has none', async () => {
      const bytes = await pdfOf([
        [
          { text: 'Onboarding checklist', y: 720 },
          { text: 'Step one.', y: 680 },
        ],
      ]);
      expect((await parseFile(bytes, 'onboarding.pdf')).title).toBe('Onboarding checklist');
    });

    it('recognises a PDF by its bytes whatever its name', async () => {
      const bytes = await pdfOf([[{ text: 'Misnamed', y: 720 }]]);
      expect((await parseFile(bytes, 'download.bin', 'application/octet-stream')).title).toBe(
        'Misnamed',
      );
    });

    it('does not mistake a text file that mentions %PDF- for a PDF', async () => {
      const bytes = Buffer.from('Every PDF file starts with %PDF- and a version.');
      expect((await parseFile(bytes, 'pdf-notes.txt')).sections[0]?.paragraphs).toEqual([
        'Every PDF file starts with %PDF- and a version.',
      ]);
    });

    it('fails with FileParseError for a damaged PDF', async () => {
      const bytes = Buffer.from('%PDF-1.7\nthis is not really a PDF\n%%EOF');
      await expect(parseFile(bytes, 'broken.pdf')).rejects.toThrow(FileParseError);
      await expect(parseFile(bytes, 'broken.pdf')).rejects.toThrow('could not read "broken.pdf"');
    });
  });

  describe('DOCX', () => {
    it('keeps Word headings as heading paths and the Title style as the title', async () => {
      // Prepare
      const bytes = await docxOf([
        new Paragraph({ text: 'Employee Handbook', heading: HeadingLevel.TITLE }),
        new Paragraph({ text: 'Welcome aboard.' }),
        new Paragraph({ text: 'Leave', heading: HeadingLevel.HEADING_1 }),
        new Paragraph({
          children: [
            new TextRun('Annual leave is '),
            new TextRun({ text: '25 days', bold: true }),
            new TextRun('.'),
          ],
        }),
        new Paragraph({ text: 'Sick leave', heading: HeadingLevel.HEADING_2 }),
        new Paragraph({ text: 'Tell your manager.' }),
      ]);

      // Act
      const document = await parseFile(bytes, 'handbook.docx');

      // Assess
      expect(document).toEqual({
        title: 'Employee Handbook',
        url: null,
        sections: [
          { headingPath: ['Employee Handbook'], paragraphs: ['Welcome aboard.'] },
          { headingPath: ['Leave'], paragraphs: ['Annual leave is 25 days.'] },
          { headingPath: ['Leave', 'Sick leave'], paragraphs: ['Tell your manager.'] },
        ],
      });
    });

    it('falls back to the file name for the title', async () => {
      const bytes = await docxOf([new Paragraph({ text: 'Just text.' })]);
      expect((await parseFile(bytes, 'folder/Meeting notes.docx')).title).toBe('Meeting notes');
    });

    it('fails with FileParseError for a damaged DOCX', async () => {
      const bytes = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64, 1)]);
      await expect(parseFile(bytes, 'broken.docx')).rejects.toThrow(FileParseError);
    });
  });

  describe('HTML', () => {
    it('parses like a web page, honouring a declared charset', async () => {
      // Prepare: "Café" in windows-1252 (é = 0xE9).
      const bytes = Buffer.concat([
        Buffer.from(
          '<html><head><meta charset="windows-1252"><title>Menu</title></head><body><nav>x</nav><p>Caf',
        ),
        Buffer.from([0xe9]),
        Buffer.from('</p></body></html>'),
      ]);

      // Act
      const document = await parseFile(bytes, 'menu.html');

      // Assess
      expect(document).toEqual({
        title: 'Menu',
        url: null,
        sections: [{ headingPath: [], paragraphs: ['Café'] }],
      });
    });

    it('titles an untitled page after the file', async () => {
      expect((await parseFile(Buffer.from('<p>x</p>'), 'faq.htm')).title).toBe('faq');
    });
  });

  describe('Markdown', () => {
    it('turns headings into heading paths and takes the front matter title', async () => {
      // Prepare
      const source = [
        '---',
        'title: "Deploy guide"',
        'tags: [ops]',
        '---',
        '# Deploying',
        '',
        'Run **make deploy**, then check the',
        '[dashboard](https://example.com).',
        '',
        '## Rollback',
        '',
        '- Find the previous release',
        '- Run `make rollback`',
        '',
        '<details><summary>Why?</summary>Because &amp; so.</details>',
        '',
        '```sh',
        'make rollback VERSION=1',
        '```',
      ].join('\n');

      // Act
      const document = await parseFile(Buffer.from(source), 'deploy.md');

      // Assess
      expect(document).toEqual({
        title: 'Deploy guide',
        url: null,
        sections: [
          {
            headingPath: ['Deploying'],
            paragraphs: ['Run make deploy, then check the dashboard.'],
          },
          {
            headingPath: ['Deploying', 'Rollback'],
            paragraphs: [
              'Find the previous release',
              'Run `make rollback`',
              'Why?',
              'Because & so.',
              'make rollback VERSION=1',
            ],
          },
        ],
      });
    });

    it('takes the first heading, else the file name, as the title; detected by content type', async () => {
      expect(
        (await parseFile(Buffer.from('# Intro\n\nText'), 'README', 'text/markdown')).title,
      ).toBe('Intro');
      expect((await parseFile(Buffer.from('Text only'), 'notes.markdown')).title).toBe('notes');
    });
  });

  describe('plain text', () => {
    // Issue 10 (P171): a line break inside a paragraph is a soft wrap, as in a web page's paragraph.
    it('splits paragraphs at blank lines and joins the lines within them', async () => {
      const bytes = Buffer.from(
        '\ufeffFirst  paragraph\r\nsecond line\r\n\r\n   \r\n\tSecond paragraph\n\n\n',
      );
      expect(await parseFile(bytes, 'notes.txt', 'text/plain; charset=utf-8')).toEqual({
        title: 'notes',
        url: null,
        sections: [
          { headingPath: [], paragraphs: ['First paragraph second line', 'Second paragraph'] },
        ],
      });
    });

    it('reads UTF-16 with a byte order mark', async () => {
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße', 'utf16le')]);
      expect((await parseFile(bytes, 'greeting.txt')).sections[0]?.paragraphs).toEqual(['Grüße']);
    });

    it('gives an empty file no sections', async () => {
      expect(await parseFile(Buffer.alloc(0), 'empty.txt')).toEqual({
        title: 'empty',
        url: null,
        sections: [],
      });
    });
  });

  describe('CSV', () => {
    it('makes each row a paragraph of header: value pairs, titled after the file', async () => {
      // Prepare
      const csv =
        'Product,Price,Notes\r\nWidget,"1,50",Blue\r\nGadget,3.00,\r\n,,\r\n"Thing ""X""",2.00,"multi\nline"\r\n';

      // Act
      const document = await parseFile(Buffer.from(csv), 'prices.csv');

      // Assess
      expect(document).toEqual({
        title: 'prices',
        url: null,
        sections: [
          {
            headingPath: [],
            paragraphs: [
              'Product: Widget; Price: 1,50; Notes: Blue',
              'Product: Gadget; Price: 3.00',
              'Product: Thing "X"; Price: 2.00; Notes: multi\nline',
            ],
          },
        ],
      });
    });

    it('detects semicolon and tab delimiters and names unnamed or extra columns', async () => {
      const semicolons = await parseFile(Buffer.from('Name;;Age\nAda;x;36;extra\n'), 'people.csv');
      expect(semicolons.sections[0]?.paragraphs).toEqual([
        'Name: Ada; column 2: x; Age: 36; column 4: extra',
      ]);
      const tabs = await parseFile(Buffer.from('a\tb\n1\t2\n'), 'data.csv', 'text/csv');
      expect(tabs.sections[0]?.paragraphs).toEqual(['a: 1; b: 2']);
    });

    it('gives a header-only file no sections', async () => {
      expect((await parseFile(Buffer.from('a,b\n'), 'empty.csv')).sections).toEqual([]);
    });
  });

  describe('unsupported types (D25)', () => {
    it.each([
      ['sheet.xlsx', undefined],
      ['image.png', 'image/png'],
      ['archive', 'application/octet-stream'],
      ['legacy.doc', 'application/msword'],
    ])('refuses %s (%s), naming the accepted types', async (filename, contentType) => {
      const attempt = parseFile(Buffer.from('data'), filename, contentType);
      await expect(attempt).rejects.toThrow(UnsupportedFileTypeError);
      await expect(parseFile(Buffer.from('data'), filename, contentType)).rejects.toThrow(
        'accepted: PDF, DOCX, HTML, Markdown, plain text, CSV',
      );
    });

    it('refuses a ZIP package that is named like text', async () => {
      const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(32)]);
      await expect(parseFile(zip, 'book.txt')).rejects.toThrow(UnsupportedFileTypeError);
    });

    it('exposes a 400-style error code and the accepted types', async () => {
      const error = await parseFile(Buffer.from('x'), 'a.xlsx').catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 'invalid_request',
        details: {
          filename: 'a.xlsx',
          accepted_types: ['pdf', 'docx', 'html', 'markdown', 'text', 'csv'],
        },
      });
    });
  });
});

describe('Function: textToDocument', () => {
  it('builds a one-section document with the given title and address', () => {
    expect(textToDocument('a\n\nb', 'T', 'https://example.com/t.txt')).toEqual({
      title: 'T',
      url: 'https://example.com/t.txt',
      sections: [{ headingPath: [], paragraphs: ['a', 'b'] }],
    });
  });
});
