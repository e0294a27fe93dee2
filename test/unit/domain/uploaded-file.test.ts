import {
  absoluteDocumentUrl,
  inlineContentDisposition,
  uploadedFileContentPath,
  uploadedFileTitle,
} from '../../../layers/core/domain/uploaded-file';

const DS = 'ds_0123456789abcdefghijklmnop';
const DOC = 'doc_0123456789abcdefghijklmnop';

describe('uploadedFileTitle', () => {
  it('names a file by its name, then its heading when the heading says something else', () => {
    expect(uploadedFileTitle('express.md', 'Express')).toBe('express.md — Express');
    expect(uploadedFileTitle('README.md', 'Description')).toBe('README.md — Description');
  });

  it('names a file by its name alone when its title is only its stem', () => {
    expect(uploadedFileTitle('notes.txt', 'notes')).toBe('notes.txt');
    expect(uploadedFileTitle('Notes.TXT', 'Notes')).toBe('Notes.TXT');
    expect(uploadedFileTitle('archive.tar.gz', 'archive.tar')).toBe('archive.tar.gz');
  });

  it('names a file by its name when its content has no title', () => {
    expect(uploadedFileTitle('empty.md', '')).toBe('empty.md');
    expect(uploadedFileTitle('.md', 'Untitled')).toBe('.md');
  });
});

describe('absoluteDocumentUrl', () => {
  const path = uploadedFileContentPath(DS, DOC);

  it('joins an uploaded file content path to the public origin', () => {
    expect(path).toBe(`/api/v1/data-sources/${DS}/files/${DOC}/content`);
    expect(absoluteDocumentUrl(path, 'https://svc.example/prod/')).toBe(
      `https://svc.example/prod${path}`,
    );
  });

  it('leaves other addresses as indexed', () => {
    expect(absoluteDocumentUrl('https://docs.example/a', 'https://svc.example')).toBe(
      'https://docs.example/a',
    );
    expect(absoluteDocumentUrl('/api/v1/kb/kb_1/versions/2', 'https://svc.example')).toBe(
      '/api/v1/kb/kb_1/versions/2',
    );
    expect(absoluteDocumentUrl(null, 'https://svc.example')).toBeNull();
  });

  it('keeps the path relative when the origin is unknown', () => {
    expect(absoluteDocumentUrl(path, '')).toBe(path);
  });
});

describe('inlineContentDisposition', () => {
  it('shows a file in place under its name', () => {
    expect(inlineContentDisposition('express.md')).toBe(
      `inline; filename="express.md"; filename*=UTF-8''express.md`,
    );
  });

  it('keeps the quoted name printable ASCII and gives the exact name in filename*', () => {
    expect(inlineContentDisposition('Prix "été".pdf')).toBe(
      `inline; filename="Prix _t_.pdf"; filename*=UTF-8''Prix%20%22%C3%A9t%C3%A9%22.pdf`,
    );
    expect(inlineContentDisposition("a\\b'(c).txt")).toBe(
      `inline; filename="ab'(c).txt"; filename*=UTF-8''a%5Cb%27%28c%29.txt`,
    );
  });
});
