import {
  describeDeleted,
  documentStatusWords,
  listNames,
  namesAlreadyThere,
} from '../../src/screens/data-sources/documents-words';
import type { Upload } from '../../src/screens/data-sources/uploads';
import { isSynced, sourceStatusWords } from '../../src/screens/data-sources/words';

const upload = (change: Partial<Upload>): Upload => ({
  key: 'k1',
  name: 'guide.md',
  size: 10,
  phase: 'sending',
  sent: 0.5,
  message: null,
  documentId: 'doc_1',
  ...change,
});

describe("a source's documents in words", () => {
  it('says what this page is doing with a file before the service knows it', () => {
    const waiting = { id: 'doc_1', status: 'awaiting_upload' as const, error: null };

    expect(documentStatusWords(waiting, [upload({ phase: 'sending' })])).toBe('Uploading');
    expect(documentStatusWords(waiting, [upload({ phase: 'indexing' })])).toBe('Indexing');
    expect(documentStatusWords(waiting, [])).toBe('Waiting for upload');
  });

  it('shows a replaced file as uploading, not as the file it replaces', () => {
    const replaced = { id: 'doc_1', status: 'indexed' as const, error: null };

    expect(documentStatusWords(replaced, [upload({ phase: 'sending' })])).toBe('Uploading');
    expect(documentStatusWords(replaced, [upload({ phase: 'indexed' })])).toBe('Indexed');
  });

  it('gives a failed file its reason', () => {
    expect(documentStatusWords({ id: 'doc_2', status: 'failed', error: 'not a PDF' }, [])).toBe(
      'Failed: not a PDF',
    );
  });

  it('finds the chosen names the source already has, once each', () => {
    expect(
      namesAlreadyThere(
        [{ name: 'a.md' }, { name: 'b.md' }, { name: 'a.md' }],
        [{ filename: 'a.md' }, { filename: 'c.md' }],
      ),
    ).toEqual(['a.md']);
  });

  it('lists names as a sentence does', () => {
    expect(listNames(['a.md'])).toBe('a.md');
    expect(listNames(['a.md', 'b.md'])).toBe('a.md and b.md');
    expect(listNames(['a', 'b', 'c'])).toBe('a, b and c');
    expect(listNames(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more');
  });

  it('says what a bulk delete did, and what it left', () => {
    expect(describeDeleted({ deleted: ['doc_1', 'doc_2'], failed: [] })).toBe('2 files deleted.');
    expect(
      describeDeleted({ deleted: ['doc_1'], failed: [{ document_id: 'doc_2', error: 'busy' }] }),
    ).toBe('1 file deleted; 1 could not be deleted and is still there.');
  });
});

describe("a source's status in words", () => {
  it('says Syncing while a sync is asked for or running, not "Not synced yet"', () => {
    const job = { id: 'job_1' } as never;

    expect(sourceStatusWords({ type: 'website', status: 'pending', current_job: job })).toBe(
      'Syncing',
    );
    expect(sourceStatusWords({ type: 'website', status: 'pending', current_job: null })).toBe(
      'Not synced yet',
    );
  });

  it('never speaks of syncing for a file source', () => {
    expect(isSynced('file')).toBe(false);
    expect(sourceStatusWords({ type: 'file', status: 'pending', current_job: null })).toBe(
      'No files yet',
    );
    expect(sourceStatusWords({ type: 'file', status: 'processing', current_job: null })).toBe(
      'Indexing',
    );
  });
});
