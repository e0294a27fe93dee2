import {
  absoluteDocumentUrl,
  inlineContentDisposition,
  isUploadedFileLink,
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

describe('isUploadedFileLink', () => {
  const path =
    '/api/v1/data-sources/ds_01m8k1bkx3rthj0hnrvfc0320p/files/doc_01m8k1bkz9g3cb5tqf6ea84h8g/content';

  it("knows a file's content link, relative or with any origin and stage", () => {
    expect(isUploadedFileLink(path)).toBe(true);
    expect(isUploadedFileLink(`https://svc.example/stage${path}`)).toBe(true);
    expect(isUploadedFileLink(`http://127.0.0.1:3000${path}`)).toBe(true);
  });

  it('knows a web page and no address are not', () => {
    expect(isUploadedFileLink('https://help.example/warranty')).toBe(false);
    expect(isUploadedFileLink(null)).toBe(false);
  });
});
