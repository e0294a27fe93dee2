import {
  ACCEPTED_FILE_TYPES_TEXT,
  detectFileType,
  servedContentType,
} from '../../../layers/core/domain/file-types';

describe('Domain: file types (D25)', () => {
  it.each([
    ['report.pdf', undefined, 'pdf'],
    ['Report.PDF', undefined, 'pdf'],
    ['letter.docx', undefined, 'docx'],
    ['index.htm', undefined, 'html'],
    ['page.xhtml', undefined, 'html'],
    ['README.md', undefined, 'markdown'],
    ['notes.txt', undefined, 'text'],
    ['data.csv', undefined, 'csv'],
    // The extension wins over a generic or wrong content type.
    ['data.csv', 'application/octet-stream', 'csv'],
    ['notes.md', 'text/plain', 'markdown'],
    // Without a known extension, the content type decides.
    ['README', 'text/markdown; charset=utf-8', 'markdown'],
    ['download', 'Application/PDF', 'pdf'],
    ['.profile', 'text/plain', 'text'],
  ])('detects %s (%s) as %s', (filename, contentType, expected) => {
    expect(detectFileType(filename, contentType)).toBe(expected);
  });

  it.each([
    ['sheet.xlsx', undefined],
    ['slides.pptx', 'application/octet-stream'],
    ['photo.jpg', 'image/jpeg'],
    ['noextension', undefined],
  ])('does not accept %s (%s)', (filename, contentType) => {
    expect(detectFileType(filename, contentType)).toBeUndefined();
  });

  it('names the accepted types in D25 order', () => {
    expect(ACCEPTED_FILE_TYPES_TEXT).toBe('PDF, DOCX, HTML, Markdown, plain text, CSV');
  });
});

describe('servedContentType', () => {
  it.each([
    ['warranty.pdf', null, 'application/pdf'],
    ['express.md', 'application/octet-stream', 'text/markdown; charset=utf-8'],
    ['notes.txt', 'text/plain; charset=iso-8859-1', 'text/plain; charset=iso-8859-1'],
    ['page', 'text/html', 'text/html; charset=utf-8'],
    ['archive.zip', 'application/zip', 'application/octet-stream'],
  ])('serves %s (declared %s) as %s', (filename, declared, expected) => {
    expect(servedContentType(filename, declared)).toBe(expected);
  });
});
