import { ApiError } from '../../src/api/api-error';
import {
  draftOf,
  explainSaveFailure,
  isDirty,
  listHref,
  listQueryOf,
  pageAt,
  parseTags,
} from '../../src/screens/kb/kb.state';
import { CONTEXT_LINES, compareTexts } from '../../src/screens/kb/kb-diff';
import { renderMarkdown } from '../../src/screens/kb/markdown';

describe('the knowledge base screen', () => {
  describe('comparing versions (P255)', () => {
    it('marks lines added and removed, and counts them', () => {
      const comparison = compareTexts(
        '# Returns\nWithin 30 days.\n',
        '# Returns\nWithin 60 days.\nKeep the receipt.',
        'lines',
      );

      expect(comparison).toEqual({
        added: 2,
        removed: 1,
        rows: [
          { kind: 'same', text: '# Returns' },
          { kind: 'removed', text: 'Within 30 days.' },
          { kind: 'added', text: 'Within 60 days.' },
          { kind: 'added', text: 'Keep the receipt.' },
        ],
      });
    });

    it('folds long unchanged runs, keeping three lines of context around each change', () => {
      const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
      const changed = [...lines];
      changed[9] = 'line ten';
      const { rows } = compareTexts(lines.join('\n'), changed.join('\n'), 'lines');

      expect(rows).toEqual([
        { kind: 'fold', lines: 9 - CONTEXT_LINES },
        ...[7, 8, 9].map((n) => ({ kind: 'same', text: `line ${n}` })),
        { kind: 'removed', text: 'line 10' },
        { kind: 'added', text: 'line ten' },
        ...[11, 12, 13].map((n) => ({ kind: 'same', text: `line ${n}` })),
        { kind: 'fold', lines: 10 - CONTEXT_LINES },
      ]);
    });

    it('compares by words inside the text', () => {
      const comparison = compareTexts('Ships in 2 days.', 'Ships in 1 day.', 'words');

      expect(comparison.added).toBe(2);
      expect(comparison.removed).toBe(2);
      expect(comparison.rows?.map((row) => row.kind)).toEqual(['same', 'removed', 'added', 'same']);
      expect(comparison.rows?.filter((row) => row.kind === 'removed')).toEqual([
        { kind: 'removed', text: '2 days' },
      ]);
    });

    it('finds nothing between equal texts, a final newline or not', () => {
      expect(compareTexts('a\nb', 'a\nb\n', 'lines')).toMatchObject({ added: 0, removed: 0 });
    });
  });

  describe('the preview (P254)', () => {
    it('renders Markdown', () => {
      expect(renderMarkdown('# Title\n\n*Soon*')).toBe('<h1>Title</h1>\n<p><em>Soon</em></p>\n');
    });

    it('shows raw HTML as text, never as markup', () => {
      const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>');
      expect(html).not.toMatch(/<script|<img/);
      expect(html).toContain('&lt;script&gt;');
    });

    it('refuses script links and opens others in a new tab without opener or referrer', () => {
      expect(renderMarkdown('[run](javascript:alert(1))')).not.toContain('href');
      expect(renderMarkdown('[docs](https://example.org/a)')).toBe(
        '<p><a href="https://example.org/a" target="_blank" rel="noopener noreferrer">docs</a></p>\n',
      );
    });

    it('shows images as a link to the image instead of loading them', () => {
      expect(renderMarkdown('![A "chart"](https://example.org/c.png)')).toBe(
        '<p><a href="https://example.org/c.png" target="_blank" rel="noopener noreferrer" class="markdown__image">Image: A &quot;chart&quot;</a></p>\n',
      );
    });
  });

  describe('state', () => {
    it('reads the list filters from the address and writes only what differs from the defaults', () => {
      expect(listQueryOf({ status: 'published', tag: ' billing ', page: '2' })).toEqual({
        status: 'published',
        tag: 'billing',
        page: 2,
      });
      expect(listQueryOf({ status: 'archived', tag: ' ', page: '-1' })).toEqual({
        status: null,
        tag: null,
        page: 1,
      });
      expect(listHref({ status: null, tag: 'a&b', page: 1 })).toBe('/kb?tag=a%26b');
      expect(listHref({ status: null, tag: null, page: 1 })).toBe('/kb');
    });

    it('knows the pages under /kb', () => {
      expect(pageAt('/kb')).toEqual({ kind: 'list' });
      expect(pageAt('/kb/new')).toEqual({ kind: 'new' });
      expect(pageAt('/kb/kb_1')).toEqual({ kind: 'article', id: 'kb_1' });
      expect(pageAt('/kb/kb_1/history')).toEqual({ kind: 'history', id: 'kb_1' });
      expect(pageAt('/kb/kb_1/other')).toEqual({ kind: 'missing' });
    });

    it('reads tags as the API keeps them, and sees a change only where saving would make one', () => {
      expect(parseTags(' billing, , refunds,billing ')).toEqual(['billing', 'refunds']);
      const saved = draftOf({ title: 'Refunds', tags: ['billing', 'refunds'], content: 'x' });
      expect(isDirty({ ...saved, tags: 'billing,refunds, ' }, saved)).toBe(false);
      expect(isDirty({ ...saved, title: ' Refunds ' }, saved)).toBe(false);
      expect(isDirty({ ...saved, content: 'x ' }, saved)).toBe(true);
      expect(isDirty({ ...saved, tags: 'refunds, billing' }, saved)).toBe(true);
    });

    it('says a version conflict in words and keeps the reference (P253)', () => {
      const conflict = ApiError.from(
        {
          error: {
            code: 'invalid_request',
            message: 'at version 3, not 2',
            details: { reason: 'version_conflict', current_version: 3 },
          },
          request_id: 'req_1',
        },
        { status: 409, headers: new Headers() },
      );
      const explained = explainSaveFailure(conflict) as ApiError;

      expect(explained.message).toMatch(
        /^Someone else saved this article since you opened it \(it is now at version 3\)/,
      );
      expect(explained.requestId).toBe('req_1');
      const other = ApiError.from({}, { status: 403, headers: new Headers() });
      expect(explainSaveFailure(other)).toBe(other);
    });
  });
});
