import type {
  KbArticle,
  KbArticleStatus,
  KbArticleSummary,
  KbArticleVersion,
  KbArticleVersionSummary,
} from '../domain/kb-article';

export interface KbArticleFilter {
  readonly status?: KbArticleStatus;
  /** Only articles whose tags include this one (exact). */
  readonly tag?: string;
}

/**
 * Knowledge-base articles of one organization and their versions;
 * every call is scoped by `orgId`. An article is one item holding its
 * latest version (what `GET /kb/:id` shows and what is indexed), and each
 * version one more item, written after it.
 */
export interface KbArticleRepository {
  /** Writes a new article (version 1). */
  create(orgId: string, article: KbArticle): Promise<void>;
  get(orgId: string, id: string): Promise<KbArticle | null>;
  /** Every article, newest first, without content. */
  list(orgId: string, filter: KbArticleFilter): Promise<KbArticleSummary[]>;
  /**
   * Makes `next` the article if it is still at version `previousVersion`, in
   * one conditional write; `false` when it is gone or another write came first.
   */
  replace(orgId: string, next: KbArticle, previousVersion: number): Promise<boolean>;
  /** Records one version (idempotent: the same version written twice is one item). */
  putVersion(orgId: string, version: KbArticleVersion): Promise<void>;
  getVersion(orgId: string, articleId: string, version: number): Promise<KbArticleVersion | null>;
  /** The recorded versions, newest first, without content. */
  listVersions(orgId: string, articleId: string): Promise<KbArticleVersionSummary[]>;
  /** `false` when there was no such article. */
  delete(orgId: string, id: string): Promise<boolean>;
  /** Removes every recorded version of an article (after it is deleted). */
  deleteVersions(orgId: string, articleId: string): Promise<void>;
}
