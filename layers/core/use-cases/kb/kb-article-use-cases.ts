import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type {
  KbArticle,
  KbArticleFields,
  KbArticleStatus,
  KbArticleSummary,
  KbArticleVersion,
  KbArticleVersionSummary,
} from '../../domain/kb-article';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { KbArticleFilter, KbArticleRepository } from '../../ports/kb-article-repository.port';
import type { SyncJobQueue } from '../../ports/sync-job-queue.port';
import { ensureKbDataSource } from './kb-data-source';

export interface KbDependencies {
  readonly kbArticles: KbArticleRepository;
  readonly dataSources: Pick<DataSourceRepository, 'get' | 'createIfAbsent'>;
  /** Published changes reach the index through the sync worker. */
  readonly syncQueue: SyncJobQueue;
  readonly clock: Clock;
}

export interface CreateKbArticleInput {
  readonly title: string;
  readonly content: string;
  readonly tags?: readonly string[] | undefined;
  readonly status?: KbArticleStatus | undefined;
}

export type UpdateKbArticleInput = Partial<CreateKbArticleInput> & {
  /** Write only if the article is still at this version. */
  readonly expected_version?: number | undefined;
};

/** The bound on optimistic retries before a `409`. */
const UPDATE_TRIES = 3;

function versionOf(article: KbArticle): KbArticleVersion {
  return {
    article_id: article.id,
    version: article.version,
    title: article.title,
    content: article.content,
    tags: article.tags,
    status: article.status,
    created_at: article.updated_at,
  };
}

/** Tells the sync worker to bring the article's chunks in line with it. */
function reindex(
  deps: Pick<KbDependencies, 'syncQueue'>,
  orgId: string,
  article: Pick<KbArticle, 'id' | 'data_source_id'>,
  action: 'reconcile' | 'remove',
): Promise<void> {
  return deps.syncQueue.send({
    org_id: orgId,
    data_source_id: article.data_source_id,
    kb_article_id: article.id,
    action,
  });
}

/** Tags as stored: each once, in the order given (D4 leaves duplicates to us). */
function distinct(tags: readonly string[] | undefined): readonly string[] {
  return [...new Set(tags ?? [])];
}

export async function createKbArticle(
  deps: KbDependencies,
  orgId: string,
  input: CreateKbArticleInput,
): Promise<KbArticle> {
  const source = await ensureKbDataSource(deps, orgId);
  const now = deps.clock.now().toISOString();
  const article: KbArticle = {
    id: newId('kbArticle', deps.clock.now().getTime()),
    title: input.title,
    content: input.content,
    tags: distinct(input.tags),
    // A new article is a draft unless it says otherwise.
    status: input.status ?? 'draft',
    version: 1,
    data_source_id: source.id,
    created_at: now,
    updated_at: now,
  };
  await deps.kbArticles.create(orgId, article);
  await deps.kbArticles.putVersion(orgId, versionOf(article));
  if (article.status === 'published') await reindex(deps, orgId, article, 'reconcile');
  return article;
}

export async function getKbArticle(
  deps: Pick<KbDependencies, 'kbArticles'>,
  orgId: string,
  id: string,
): Promise<KbArticle> {
  const article = await deps.kbArticles.get(orgId, id);
  if (!article) throw new NotFoundError(`No knowledge-base article ${id}`);
  return article;
}

/**
 * Lists articles without their content. Listing is a use of the
 * knowledge base, so it makes sure the built-in data source exists
 * and says which it is.
 */
export async function listKbArticles(
  deps: Pick<KbDependencies, 'kbArticles' | 'dataSources' | 'clock'>,
  orgId: string,
  filter: KbArticleFilter,
  page: PageRequest,
): Promise<Page<KbArticleSummary> & { readonly dataSourceId: string }> {
  const source = await ensureKbDataSource(deps, orgId);
  const all = await deps.kbArticles.list(orgId, filter);
  return { ...pageOf(all, page), dataSourceId: source.id };
}

/**
 * Every `PUT` records version n+1 with the fields given and the rest
 * carried over from version n (`status` too, so publishing and
 * unpublishing are versions like any edit). Concurrent updates each get
 * their own version number (a conditional write on the version; the three
 * tries, then `409`). With `expected_version` the article must still
 * be at that version, else `409` and nothing is written. A change that leaves
 * or enters `published` is sent to the index.
 */
export async function updateKbArticle(
  deps: KbDependencies,
  orgId: string,
  id: string,
  input: UpdateKbArticleInput,
): Promise<KbArticle> {
  for (let attempt = 1; attempt <= UPDATE_TRIES; attempt += 1) {
    const current = await getKbArticle(deps, orgId, id);
    // Checked on every try, so a write that lost its race to another is refused, not merged.
    if (input.expected_version !== undefined && input.expected_version !== current.version) {
      throw new ConflictError(
        `Knowledge-base article ${id} is at version ${current.version}, not ${input.expected_version}: someone saved it since`,
        { reason: 'version_conflict', current_version: current.version },
      );
    }
    const fields: KbArticleFields = {
      title: input.title ?? current.title,
      content: input.content ?? current.content,
      tags: input.tags !== undefined ? distinct(input.tags) : current.tags,
      status: input.status ?? current.status,
    };
    const next: KbArticle = {
      ...current,
      ...fields,
      version: current.version + 1,
      updated_at: deps.clock.now().toISOString(),
    };
    if (!(await deps.kbArticles.replace(orgId, next, current.version))) continue;
    await deps.kbArticles.putVersion(orgId, versionOf(next));
    if (current.status === 'published' || next.status === 'published')
      await reindex(deps, orgId, next, 'reconcile');
    return next;
  }
  throw new ConflictError(
    `Knowledge-base article ${id} changed ${UPDATE_TRIES} times while being updated; try again`,
  );
}

/**
 * P117: the article's own item is written before its version's, so a crash
 * between them leaves the latest version readable from the article. The
 * versions listed and read complete it from there.
 */
async function recordedLatest(
  deps: Pick<KbDependencies, 'kbArticles'>,
  orgId: string,
  article: KbArticle,
): Promise<void> {
  if (await deps.kbArticles.getVersion(orgId, article.id, article.version)) return;
  await deps.kbArticles.putVersion(orgId, versionOf(article));
}

export async function listKbArticleVersions(
  deps: Pick<KbDependencies, 'kbArticles'>,
  orgId: string,
  id: string,
  page: PageRequest,
): Promise<Page<KbArticleVersionSummary>> {
  const article = await getKbArticle(deps, orgId, id);
  await recordedLatest(deps, orgId, article);
  // Versions newer than the article cannot exist; one written by an update that lost its race can (P117).
  const versions = (await deps.kbArticles.listVersions(orgId, id)).filter(
    (version) => version.version <= article.version,
  );
  return pageOf(versions, page);
}

export async function getKbArticleVersion(
  deps: Pick<KbDependencies, 'kbArticles'>,
  orgId: string,
  id: string,
  version: number,
): Promise<KbArticleVersion> {
  const article = await getKbArticle(deps, orgId, id);
  if (version > article.version) {
    throw new NotFoundError(`Knowledge-base article ${id} has no version ${version}`);
  }
  if (version === article.version) return versionOf(article);
  const recorded = await deps.kbArticles.getVersion(orgId, id, version);
  if (!recorded) throw new NotFoundError(`Knowledge-base article ${id} has no version ${version}`);
  return recorded;
}

/**
 * Deletes an article and its history. The index is told first (* `remove`, whatever the article holds when the worker reads it), so a
 * failure after it leaves a retryable delete, never chunks of an article
 * that is gone.
 */
export async function deleteKbArticle(
  deps: KbDependencies,
  orgId: string,
  id: string,
): Promise<void> {
  const article = await getKbArticle(deps, orgId, id);
  await reindex(deps, orgId, article, 'remove');
  if (!(await deps.kbArticles.delete(orgId, id))) {
    throw new NotFoundError(`No knowledge-base article ${id}`);
  }
  await deps.kbArticles.deleteVersions(orgId, id);
}

/** A version number from a path (`/versions/:n`): a positive integer, else `400`. */
export function parseVersionNumber(value: string | undefined): number {
  const version = /^[1-9][0-9]{0,8}$/.test(value ?? '') ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(version)) {
    throw new InvalidRequestError('The version must be a positive integer', {
      fields: [{ path: 'version', message: 'must be a positive integer' }],
    });
  }
  return version;
}
