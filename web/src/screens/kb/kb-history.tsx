import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { explainSaveFailure, KB_PATH, type KbVersion, statusLabel } from './kb.state';
import { type Comparison, compareTexts, type DiffMode } from './kb-diff';

const VERSIONS_PAGE = 50;

/** `?from=&to=&by=` as the versions to compare: numbers within 1..latest, older first. */
export function comparisonOf(
  query: Record<string, string | undefined>,
  latest: number,
): { from: number; to: number; by: DiffMode } {
  const number = (value: string | undefined, fallback: number) => {
    const parsed = Number(value);
    return Number.isInteger(parsed) && parsed >= 1 && parsed <= latest ? parsed : fallback;
  };
  const to = number(query.to, latest);
  const from = number(query.from, Math.max(1, to - 1));
  return {
    from: Math.min(from, to),
    to: Math.max(from, to),
    by: query.by === 'words' ? 'words' : 'lines',
  };
}

/**
 * An article's versions, newest first; any two compared with jsdiff,
 * by lines or by words; and, for those who may edit, restoring an
 * old version, which saves its title, tags and text as a new version
 * (there is no restore route: it is the same `PUT`, from the version the
 * page showed). The status stays as it is.
 */
export function KbHistory({ id, canEdit }: { readonly id: string; readonly canEdit: boolean }) {
  const { session } = useApp();
  const location = useLocation();
  const reloads = useSignal(0);
  const page = Math.max(1, Number.parseInt(location.query.page ?? '1', 10) || 1);
  const history = useLoad(
    async (signal) => {
      const [article, versions] = await Promise.all([
        unwrap(session.api.GET('/api/v1/kb/{id}', { params: { path: { id } }, signal })),
        unwrap(
          session.api.GET('/api/v1/kb/{id}/versions', {
            params: {
              path: { id },
              query: {
                limit: String(VERSIONS_PAGE),
                offset: String((page - 1) * VERSIONS_PAGE),
              },
            },
            signal,
          }),
        ),
      ]);
      return { article, versions };
    },
    [id, page, reloads.value],
  );
  /** The version being restored: its button says "Restoring…". */
  const restoring = useSignal<number | null>(null);
  const notice = useSignal<string | null>(null);
  const loaded = history.data.value;

  const restoreAction = useAction(async (version: number) => {
    if (!loaded) return;
    try {
      const old = await unwrap(
        session.api.GET('/api/v1/kb/{id}/versions/{version}', {
          params: { path: { id, version: String(version) } },
        }),
      );
      const saved = await unwrap(
        session.api.PUT('/api/v1/kb/{id}', {
          params: { path: { id } },
          body: {
            title: old.title,
            content: old.content,
            tags: [...old.tags],
            expected_version: loaded.article.version,
          },
        }),
      );
      notice.value = `Version ${version} restored as version ${saved.version}.`;
      location.route(`${KB_PATH}/${id}/history?from=${version}&to=${saved.version}`, true);
      reloads.value += 1;
    } catch (error) {
      throw explainRestoreFailure(error);
    }
  });
  const restore = (version: number) => {
    restoring.value = version;
    notice.value = null;
    return restoreAction.run(version);
  };

  if (!loaded) {
    return (
      <section class="screen" aria-labelledby="kb-history-heading">
        <p class="kb-back">
          <a href={`${KB_PATH}/${id}`}>Back to the article</a>
        </p>
        <h1 id="kb-history-heading">Version history</h1>
        {history.error.value ? (
          <ErrorNotice error={history.error.value} />
        ) : (
          <p role="status">Loading the versions…</p>
        )}
      </section>
    );
  }
  const { article, versions } = loaded;
  const pages = Math.max(1, Math.ceil(versions.total / VERSIONS_PAGE));
  return (
    <section class="screen kb-wide" aria-labelledby="kb-history-heading">
      <p class="kb-back">
        <a href={`${KB_PATH}/${id}`}>Back to the article</a>
      </p>
      <h1 id="kb-history-heading">Version history: {article.title}</h1>
      {history.error.value ? <ErrorNotice error={history.error.value} /> : null}
      {restoreAction.failure.value ? <ErrorNotice error={restoreAction.failure.value} /> : null}
      <p role="status" class="kb-notice">
        {notice.value}
      </p>
      {article.version >= 2 ? (
        <Compare id={id} latest={article.version} />
      ) : (
        <p>This article has one version: there is nothing to compare yet.</p>
      )}
      <h2 id="kb-versions-heading">Versions</h2>
      {canEdit ? (
        <p class="form__hint">
          Restoring makes a new version with that version’s title, tags and text; whether the
          article is published stays as it is.
        </p>
      ) : null}
      <TableScroll label="Versions">
        <table class="table" aria-labelledby="kb-versions-heading">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Title</th>
              <th scope="col">Status</th>
              <th scope="col">Saved</th>
              <th scope="col">Length</th>
              {canEdit ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {versions.versions.map((version) => (
              <tr key={version.version}>
                <th scope="row">
                  {formatNumber(version.version)}
                  {version.version === article.version ? ' (latest)' : ''}
                </th>
                <td>{version.title}</td>
                <td>{statusLabel(version.status)}</td>
                <td>
                  <time dateTime={version.created_at} title={formatDateTime(version.created_at)}>
                    {formatRelative(version.created_at)}
                  </time>
                </td>
                <td>{formatNumber(version.content_length)} characters</td>
                {canEdit ? (
                  <td>
                    {version.version === article.version ? null : (
                      <button
                        type="button"
                        class="button button--small"
                        disabled={restoreAction.pending.value}
                        onClick={() => void restore(version.version)}
                      >
                        {restoreAction.pending.value && restoring.value === version.version
                          ? 'Restoring…'
                          : `Restore version ${version.version}`}
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager
        label="Pages of versions"
        page={page}
        pages={pages}
        hrefOf={(n) => `${KB_PATH}/${id}/history?page=${n}`}
        previous="Newer versions"
        next="Older versions"
      />
    </section>
  );
}

function explainRestoreFailure(error: unknown): unknown {
  const explained = explainSaveFailure(error);
  if (explained === error || !(error instanceof ApiError)) return error;
  return new ApiError(
    error.status,
    error.code,
    'Someone saved this article while you were looking at its history, so nothing was restored. The list now shows their version: choose again.',
    error.serverMessage,
    error.details,
    error.requestId,
    error.retryAfter,
  );
}

/** Two versions side by side as one list of changes (the choice is in the address, so it can be shared). */
function Compare({ id, latest }: { readonly id: string; readonly latest: number }) {
  const { session } = useApp();
  const location = useLocation();
  const { from, to, by } = comparisonOf(location.query, latest);
  const pair = useLoad(
    (signal) =>
      Promise.all(
        [from, to].map((version) =>
          unwrap(
            session.api.GET('/api/v1/kb/{id}/versions/{version}', {
              params: { path: { id, version: String(version) } },
              signal,
            }),
          ),
        ),
      ),
    [id, from, to],
  );
  const versions = pair.data.value;
  const older = versions?.[0];
  const newer = versions?.[1];
  const comparison = useMemo(
    () =>
      older && newer && older.version === from && newer.version === to
        ? compareTexts(older.content, newer.content, by)
        : null,
    [older, newer, by],
  );
  const options = Array.from({ length: latest }, (_, index) => latest - index);

  const onCompare = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams({
      from: String(form.get('from')),
      to: String(form.get('to')),
      by: String(form.get('by')),
    });
    location.route(`${KB_PATH}/${id}/history?${params}`);
  };

  return (
    <section class="panel" aria-labelledby="kb-compare-heading">
      <h2 id="kb-compare-heading">Compare versions</h2>
      <form class="kb-compare" onSubmit={onCompare} key={`${from}-${to}-${by}`}>
        <div class="kb-filters__field">
          <label for="kb-compare-from">Older version</label>
          <select id="kb-compare-from" name="from">
            {options.map((version) => (
              <option key={version} value={version} selected={version === from}>
                Version {version}
              </option>
            ))}
          </select>
        </div>
        <div class="kb-filters__field">
          <label for="kb-compare-to">Newer version</label>
          <select id="kb-compare-to" name="to">
            {options.map((version) => (
              <option key={version} value={version} selected={version === to}>
                Version {version}
              </option>
            ))}
          </select>
        </div>
        <fieldset class="choices kb-compare__by">
          <legend>Compare by</legend>
          <label class="choice">
            <input type="radio" name="by" value="lines" checked={by === 'lines'} /> Lines
          </label>
          <label class="choice">
            <input type="radio" name="by" value="words" checked={by === 'words'} /> Words
          </label>
        </fieldset>
        <div class="kb-filters__actions">
          <button type="submit" class="button">
            Compare
          </button>
        </div>
      </form>
      {pair.error.value ? <ErrorNotice error={pair.error.value} /> : null}
      {!comparison && !pair.error.value ? <p role="status">Comparing…</p> : null}
      {comparison && older && newer ? (
        <DiffView older={older} newer={newer} comparison={comparison} by={by} />
      ) : null}
    </section>
  );
}

function DiffView({
  older,
  newer,
  comparison,
  by,
}: {
  readonly older: KbVersion;
  readonly newer: KbVersion;
  readonly comparison: Comparison;
  readonly by: DiffMode;
}) {
  const unit = by === 'lines' ? 'line' : 'word';
  const plural = (count: number) => `${formatNumber(count)} ${unit}${count === 1 ? '' : 's'}`;
  const fields = [
    ['Title', older.title, newer.title],
    ['Tags', older.tags.join(', ') || 'none', newer.tags.join(', ') || 'none'],
    ['Status', statusLabel(older.status), statusLabel(newer.status)],
  ].filter(([, before, after]) => before !== after);
  const same = older.version === newer.version;

  return (
    <div class="kb-diff">
      <h3>
        Version {older.version} → version {newer.version}
      </h3>
      {same ? <p>These are the same version: choose two different ones.</p> : null}
      {fields.length > 0 ? (
        <dl class="facts kb-diff__fields">
          {fields.map(([name, before, after]) => (
            <Fragment key={name}>
              <dt>{name}</dt>
              <dd>
                <del>
                  <span class="visually-hidden">Was: </span>
                  {before}
                </del>{' '}
                →{' '}
                <ins>
                  <span class="visually-hidden">Now: </span>
                  {after}
                </ins>
              </dd>
            </Fragment>
          ))}
        </dl>
      ) : null}
      {comparison.rows === null ? (
        <p>
          These two versions are too different to compare here. Open each from the API (
          <code>GET /api/v1/kb/…/versions/{older.version}</code>) to compare them elsewhere.
        </p>
      ) : comparison.added === 0 && comparison.removed === 0 ? (
        !same ? (
          <p>The text is the same in both versions.</p>
        ) : null
      ) : (
        <>
          <p class="kb-diff__summary">
            Text: {plural(comparison.added)} added, {plural(comparison.removed)} removed.{' '}
            <span class="kb-muted">
              Added text is marked + and underlined; removed text is marked − and struck through.
            </span>
          </p>
          {by === 'lines' ? (
            <ol
              class="diff diff--lines"
              aria-label={`Changes from version ${older.version} to ${newer.version}`}
            >
              {comparison.rows.map((row, index) =>
                row.kind === 'fold' ? (
                  <li key={index} class="diff__fold">
                    {formatNumber(row.lines)} unchanged {row.lines === 1 ? 'line' : 'lines'}
                  </li>
                ) : row.kind === 'added' ? (
                  <li key={index}>
                    <ins>
                      <span class="diff__mark" aria-hidden="true">
                        +
                      </span>
                      <span class="visually-hidden">Added: </span>
                      {row.text}
                    </ins>
                  </li>
                ) : row.kind === 'removed' ? (
                  <li key={index}>
                    <del>
                      <span class="diff__mark" aria-hidden="true">
                        −
                      </span>
                      <span class="visually-hidden">Removed: </span>
                      {row.text}
                    </del>
                  </li>
                ) : (
                  <li key={index} class="diff__same">
                    <span class="diff__mark" aria-hidden="true">
                      {' '}
                    </span>
                    {row.text}
                  </li>
                ),
              )}
            </ol>
          ) : (
            <p class="diff diff--words">
              {comparison.rows.map((row, index) =>
                row.kind === 'added' ? (
                  <ins key={index}>
                    <span class="visually-hidden">[Added: </span>
                    {row.text}
                    <span class="visually-hidden">]</span>
                  </ins>
                ) : row.kind === 'removed' ? (
                  <del key={index}>
                    <span class="visually-hidden">[Removed: </span>
                    {row.text}
                    <span class="visually-hidden">]</span>
                  </del>
                ) : row.kind === 'same' ? (
                  <span key={index}>{row.text}</span>
                ) : null,
              )}
            </p>
          )}
        </>
      )}
    </div>
  );
}
