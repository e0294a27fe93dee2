import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { ConnectionPanel } from './connection';
import { DocumentsPanel } from './documents';
import { FilesPanel } from './files';
import { LastSync, SourceStatus } from './list';
import { SyncPanel } from './sync-panel';
import { type DataSource, FREQUENCY_NAMES, isConnector, isSynced, TYPE_NAMES } from './words';

/**
 * One data source: a file source's drop zone and files first; any other
 * source's settings, connection, sync and the documents it read.
 */
export function DataSourceDetail({
  id,
  canChange,
}: {
  readonly id: string;
  readonly canChange: boolean;
}) {
  const { session } = useApp();
  const location = useLocation();
  const round = useSignal(0);
  const loaded = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/data-sources/{id}', { params: { path: { id } }, signal })),
    [id, round.value],
  );
  // Back from the provider's sign-in, `?connected=1` says so once; the address drops it.
  const justConnected = useSignal(location.query.connected === '1');
  useEffect(() => {
    if (location.query.connected === '1') location.route(`/data-sources/${id}`, true);
  }, [location.query.connected]);
  const reload = () => {
    round.value += 1;
  };
  const source = loaded.data.value;

  return (
    <section class="screen" aria-labelledby="source-heading">
      <p class="breadcrumb">
        <a href="/data-sources">Data sources</a>
      </p>
      <h1 id="source-heading">{source?.name ?? 'Data source'}</h1>
      {loaded.error.value ? <ErrorNotice error={loaded.error.value} /> : null}
      {loaded.loading.value && !source ? <p role="status">Loading the data source…</p> : null}
      {source ? (
        <>
          {justConnected.value && source.connection_status === 'Connected' ? (
            <p class="notice" role="status">
              {source.name} is connected to {TYPE_NAMES[source.type]}. Sync it to read its
              documents.
            </p>
          ) : null}
          {/* On a file source, adding files comes first: it is what the page is for. */}
          {source.type === 'file' ? (
            <FilesPanel source={source} canChange={canChange} onChanged={reload} />
          ) : null}
          <section class="panel" aria-labelledby="about-heading">
            <h2 id="about-heading">About</h2>
            <Facts source={source} />
            {canChange && source.type !== 'kb' ? (
              <p class="panel__actions">
                <a class="button" href={`/data-sources/${source.id}/edit`}>
                  Edit settings
                </a>
              </p>
            ) : null}
          </section>
          {isConnector(source.type) ? (
            <ConnectionPanel source={source} canChange={canChange} onChanged={reload} />
          ) : null}
          {isSynced(source.type) ? (
            <>
              <SyncPanel source={source} canChange={canChange} onFinished={reload} />
              <DocumentsPanel
                source={source}
                canChange={canChange}
                version={source.last_job?.finished_at ? Date.parse(source.last_job.finished_at) : 0}
                onChanged={reload}
              />
            </>
          ) : null}
          {canChange && source.type !== 'kb' ? <DeleteSource source={source} /> : null}
        </>
      ) : null}
    </section>
  );
}

function Facts({ source }: { readonly source: DataSource }) {
  const url = typeof source.config.url === 'string' ? source.config.url : null;
  return (
    <dl class="facts">
      <dt>Type</dt>
      <dd>{TYPE_NAMES[source.type]}</dd>
      <dt>Status</dt>
      <dd>
        <SourceStatus source={source} />
      </dd>
      {url ? (
        <>
          <dt>Start address</dt>
          <dd>{url}</dd>
          <dt>Most pages</dt>
          <dd>{formatNumber(Number(source.config.max_pages ?? 100))}</dd>
        </>
      ) : null}
      <dt>Chunks</dt>
      <dd>{formatNumber(source.chunks_indexed)}</dd>
      {isSynced(source.type) ? (
        <>
          <dt>Last sync</dt>
          <dd>
            <LastSync source={source} />
          </dd>
          <dt>Sync</dt>
          <dd>
            {FREQUENCY_NAMES[source.sync_frequency]}
            {source.next_sync_at ? (
              <>
                , next{' '}
                <time dateTime={source.next_sync_at} title={formatDateTime(source.next_sync_at)}>
                  {formatRelative(source.next_sync_at)}
                </time>
              </>
            ) : null}
          </dd>
        </>
      ) : (
        <>
          <dt>Indexing</dt>
          <dd>Each file as it arrives</dd>
        </>
      )}
      <dt>Identifier</dt>
      <dd>
        <code>{source.id}</code>
      </dd>
    </dl>
  );
}

/** Deleting asks once more, in place; agents that use the source make the service refuse (409). */
function DeleteSource({ source }: { readonly source: DataSource }) {
  const { session } = useApp();
  const location = useLocation();
  const confirming = useSignal(false);
  const remove = useAction(async () => {
    await unwrap(
      session.api.DELETE('/api/v1/data-sources/{id}', { params: { path: { id: source.id } } }),
    );
    location.route('/data-sources');
  });
  return (
    <section class="panel" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      {confirming.value ? (
        <div class="confirm">
          <p>
            Delete {source.name}? Its documents leave the index; agents can no longer answer from
            it.
          </p>
          <div class="form__actions">
            <button
              type="button"
              class="button button--danger"
              disabled={remove.pending.value}
              onClick={() => void remove.run()}
            >
              Delete {source.name}
            </button>
            <button
              type="button"
              class="button"
              onClick={() => {
                confirming.value = false;
              }}
            >
              Keep it
            </button>
          </div>
        </div>
      ) : (
        <button
          type="button"
          class="button"
          onClick={() => {
            confirming.value = true;
          }}
        >
          Delete data source
        </button>
      )}
      {remove.failure.value ? <ErrorNotice error={remove.failure.value} /> : null}
    </section>
  );
}
