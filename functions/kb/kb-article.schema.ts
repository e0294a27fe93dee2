import * as z from 'zod/mini';
import { KB_ARTICLE_LIMITS, KB_ARTICLE_STATUSES } from '../../layers/core/domain/kb-article';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

const title = z
  .string()
  .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(KB_ARTICLE_LIMITS.titleMax));
/** At most 200,000 characters of Markdown; empty is allowed (a draft begun). */
const content = z.string().check(z.maxLength(KB_ARTICLE_LIMITS.contentMax));
const tag = z
  .string()
  .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(KB_ARTICLE_LIMITS.tagMax));
const tags = z.array(tag).check(z.maxLength(KB_ARTICLE_LIMITS.tagsMax));
const status = z.enum(KB_ARTICLE_STATUSES);

/** Spec: "title, content, tags, status"; a new article is a `draft` unless it says otherwise. */
export const createKbArticleBody = z.strictObject({
  title,
  content,
  tags: z.optional(tags),
  status: z.optional(status),
});

/** "article fields", any of them; each PUT records version n+1. */
export const updateKbArticleBody = z.strictObject({
  title: z.optional(title),
  content: z.optional(content),
  tags: z.optional(tags),
  status: z.optional(status),
  /**
   * The version the change was made from; when the article has moved on
   * since, nothing is written and the answer is `409` (`details.reason:
   * version_conflict`, `current_version`), so an editor never overwrites a
   * version it has not seen.
   */
  expected_version: z.optional(z.int().check(z.minimum(1))),
});

export const listKbArticlesQuery = z.strictObject({
  ...paginationQuery,
  status: z.optional(status),
  /** Articles carrying this tag (exactly, one tag). */
  tag: z.optional(tag),
});

export const listKbVersionsQuery = z.strictObject({ ...paginationQuery });

export const kbArticleResource = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  status,
  version: z.int(),
  /** The organization's built-in `kb` data source, to list in an agent's `data_source_ids`. */
  data_source_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Lists leave the content out and give its length. */
export const kbArticleSummaryResource = z.object({
  id: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  status,
  version: z.int(),
  data_source_id: z.string(),
  content_length: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const kbArticleList = z.object({
  articles: z.array(kbArticleSummaryResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
  data_source_id: z.string(),
});

export const kbArticleVersionResource = z.object({
  article_id: z.string(),
  version: z.int(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  status,
  created_at: z.string(),
});

export const kbArticleVersionList = z.object({
  versions: z.array(
    z.object({
      article_id: z.string(),
      version: z.int(),
      title: z.string(),
      tags: z.array(z.string()),
      status,
      content_length: z.int(),
      created_at: z.string(),
    }),
  ),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
