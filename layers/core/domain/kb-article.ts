import { createHash } from 'node:crypto';
import type { DataSource } from './data-source';
import { ID_PREFIXES } from './ids';

/** Spec "Knowledge-base article": `draft` or `published`. */
export const KB_ARTICLE_STATUSES = ['draft', 'published'] as const;
export type KbArticleStatus = (typeof KB_ARTICLE_STATUSES)[number];

export const KB_ARTICLE_LIMITS = {
  titleMax: 500,
  /** An article's content, in characters (JavaScript string length). */
  contentMax: 200_000,
  tagsMax: 50,
  tagMax: 100,
} as const;

/** The fields a version records (every PUT records all of them as version n+1). */
export interface KbArticleFields {
  readonly title: string;
  /** Markdown. */
  readonly content: string;
  readonly tags: readonly string[];
  readonly status: KbArticleStatus;
}

/** An article as it is now: its latest version's fields. */
export interface KbArticle extends KbArticleFields {
  readonly id: string;
  /** The latest version's number (1 at creation: each PUT adds one). */
  readonly version: number;
  /** The organization's built-in `kb` data source, which agents list to answer from it. */
  readonly data_source_id: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** An article in a list: everything but its content (a page of 200 × 200,000 characters is too big to answer). */
export type KbArticleSummary = Omit<KbArticle, 'content'> & { readonly content_length: number };

/** One recorded version (`GET /api/v1/kb/:id/versions/:n`). */
export interface KbArticleVersion extends KbArticleFields {
  readonly article_id: string;
  readonly version: number;
  readonly created_at: string;
}

export type KbArticleVersionSummary = Omit<KbArticleVersion, 'content'> & {
  readonly content_length: number;
};

export function summaryOf(article: KbArticle): KbArticleSummary {
  const { content, ...rest } = article;
  return { ...rest, content_length: content.length };
}

export function versionSummaryOf(version: KbArticleVersion): KbArticleVersionSummary {
  const { content, ...rest } = version;
  return { ...rest, content_length: content.length };
}

const ULID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The id of an organization's built-in `kb` data source, derived from
 * the organization's id: its ULID time part (so it sorts with the
 * organization's creation) and 16 characters of a hash of the id. Every
 * writer computes the same id, so creating it is one conditional put that at
 * most one writer wins, whoever comes first.
 */
export function kbDataSourceIdFor(orgId: string): string {
  const time = orgId.slice(orgId.indexOf('_') + 1, orgId.indexOf('_') + 11);
  const digest = createHash('sha256').update(`kb-data-source\n${orgId}`).digest();
  let random = '';
  for (let i = 0; i < 16; i += 1) random += ULID_ALPHABET.charAt((digest[i] ?? 0) % 32);
  return `${ID_PREFIXES.dataSource}_${time}${random}`;
}

/** The name the built-in source is shown with. */
export const KB_DATA_SOURCE_NAME = 'Knowledge base';

/**
 * The built-in source as first written: `manual` (publishing indexes,
 * the scheduler never needs to), `pending` until an article is published.
 */
export function newKbDataSource(orgId: string, now: Date): DataSource {
  return {
    id: kbDataSourceIdFor(orgId),
    type: 'kb',
    name: KB_DATA_SOURCE_NAME,
    config: {},
    sync_frequency: 'manual',
    next_sync_at: null,
    status: 'pending',
    chunks_indexed: 0,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    current_job: null,
    last_job: null,
  };
}

/**
 * Where a citation of an article's chunk points: the version that was
 * indexed, as a path under the API (readable with a Read key).
 */
export function kbVersionPath(articleId: string, version: number): string {
  return `/api/v1/kb/${articleId}/versions/${version}`;
}

/** Changes exactly when what is indexed for a published article does (its version, title or text). */
export function kbContentHash(article: Pick<KbArticle, 'version' | 'title' | 'content'>): string {
  return createHash('sha256')
    .update(`${article.version}\n${article.title}\n${article.content}`)
    .digest('hex');
}
