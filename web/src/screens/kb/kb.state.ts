import { ApiError } from '../../api/api-error';
import type { components } from '../../api/schema';

export type KbArticle = components['schemas']['KbArticle'];
export type KbArticleList = components['schemas']['KbArticleList'];
export type KbVersion = components['schemas']['KbArticleVersion'];
export type KbVersionList = components['schemas']['KbArticleVersionList'];
export type KbStatus = KbArticle['status'];

export const KB_PATH = '/kb';
export const PAGE_SIZE = 20;

/** The list's filters and page, as the address holds them (`/kb?status=draft&tag=billing&page=2`). */
export interface ListQuery {
  readonly status: KbStatus | null;
  readonly tag: string | null;
  readonly page: number;
}

export function listQueryOf(query: Record<string, string | undefined>): ListQuery {
  const status = query.status === 'draft' || query.status === 'published' ? query.status : null;
  const tag = query.tag?.trim() ? query.tag.trim() : null;
  const page = Number(query.page);
  return { status, tag, page: Number.isInteger(page) && page >= 1 ? page : 1 };
}

/** The address of a list page: only what differs from the defaults. */
export function listHref(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.status) params.set('status', query.status);
  if (query.tag) params.set('tag', query.tag);
  if (query.page > 1) params.set('page', String(query.page));
  const search = params.toString();
  return search ? `${KB_PATH}?${search}` : KB_PATH;
}

/** What the screen shows at an address under /kb. */
export type KbPage =
  | { readonly kind: 'list' }
  | { readonly kind: 'new' }
  | { readonly kind: 'article'; readonly id: string }
  | { readonly kind: 'history'; readonly id: string }
  | { readonly kind: 'missing' };

export function pageAt(path: string): KbPage {
  const parts = path.split('/').filter(Boolean).slice(1);
  if (parts.length === 0) return { kind: 'list' };
  const [first, second] = parts;
  if (parts.length === 1 && first === 'new') return { kind: 'new' };
  if (!first || parts.length > 2) return { kind: 'missing' };
  if (parts.length === 1) return { kind: 'article', id: first };
  return second === 'history' ? { kind: 'history', id: first } : { kind: 'missing' };
}

/** Tags as typed, comma-separated: trimmed, empty ones dropped, each once (as the API keeps them). */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ];
}

export function formatTags(tags: readonly string[]): string {
  return tags.join(', ');
}

/** The editor's fields. */
export interface Draft {
  readonly title: string;
  readonly tags: string;
  readonly content: string;
}

export function draftOf(article: Pick<KbArticle, 'title' | 'tags' | 'content'> | null): Draft {
  return article
    ? { title: article.title, tags: formatTags(article.tags), content: article.content }
    : { title: '', tags: '', content: '' };
}

/** Whether saving would change anything the article holds (tags compared as the API would store them). */
export function isDirty(draft: Draft, saved: Draft): boolean {
  return (
    draft.title.trim() !== saved.title.trim() ||
    draft.content !== saved.content ||
    parseTags(draft.tags).join('\n') !== parseTags(saved.tags).join('\n')
  );
}

/**
 * A save refused because someone saved the article since this editor
 * loaded it, said as what happened and what to do; the request's reference
 * stays. Any other failure is left as it is.
 */
export function explainSaveFailure(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 409) return error;
  if (error.reason !== 'version_conflict') return error;
  const current = error.details.current_version;
  const version = typeof current === 'number' ? ` (it is now at version ${current})` : '';
  return new ApiError(
    error.status,
    error.code,
    `Someone else saved this article since you opened it${version}, so your changes were not saved. They are still in the editor: copy what you need, then load the latest version.`,
    error.serverMessage,
    error.details,
    error.requestId,
    error.retryAfter,
  );
}

export function statusLabel(status: KbStatus): string {
  return status === 'published' ? 'Published' : 'Draft';
}
