import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { type DataSource, isSynced, sourceStatusWords, TYPE_NAMES } from './words';

const PAGE_SIZE = 20;
/** While a source syncs, the list is read again this often, so its status moves without a reload. */
const REFRESH_WHILE_SYNCING_MS = 5_000;

function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The organization's data sources, newest first: status, chunks and last sync (issue 21 item 7). */
export function DataSourceList({ canChange }: { readonly canChange: boolean }) {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const round = useSignal(0);
  const sources = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/data-sources', {
          params: { query: { limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) } },
          signal,
        }),
      ),
    [page, round.value],
  );
  const list = sources.data.value;
  const syncing =
    list?.data_sources.some(
      (source) => source.status === 'processing' || source.current_job !== null,
    ) ?? false;
  useEffect(() => {
    if (!syncing) return undefined;
    const timer = setTimeout(() => {
      round.value += 1;
    }, REFRESH_WHILE_SYNCING_MS);
    return () => clearTimeout(timer);
  }, [syncing, list]);
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;

  return (
    <section class="screen" aria-labelledby="data-sources-heading">
      <div class="screen__title">
        <h1 id="data-sources-heading">Data sources</h1>
        {canChange ? (
          <a class="button button--primary" href="/data-sources/new">
            New data source
          </a>
        ) : null}
      </div>
      {sources.error.value ? <ErrorNotice error={sources.error.value} /> : null}
      {sources.loading.value && !list ? <p role="status">Loading data sources…</p> : null}
      {list && (list.total === 0 || (list.total === 1 && list.data_sources[0]?.type === 'kb')) ? (
        <div class="notice">
          <p>
            No data sources yet. A data source is a website, uploaded files or a connected account
            whose documents agents answer from.
          </p>
          {canChange ? (
            <a class="button button--primary" href="/data-sources/new">
              Add the first data source
            </a>
          ) : (
            <p>Someone who may configure data sources can add the first one.</p>
          )}
        </div>
      ) : null}
      {list && list.data_sources.length > 0 ? (
        <>
          <TableScroll label="Data sources">
            <table class="table">
              <caption>
                {formatNumber(list.total)} {list.total === 1 ? 'data source' : 'data sources'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Chunks</th>
                  <th scope="col">Last sync</th>
                </tr>
              </thead>
              <tbody>
                {list.data_sources.map((source) => (
                  <tr key={source.id}>
                    <th scope="row">
                      <a href={`/data-sources/${source.id}`}>{source.name}</a>
                    </th>
                    <td>{TYPE_NAMES[source.type]}</td>
                    <td>
                      <SourceStatus source={source} />
                    </td>
                    <td>{formatNumber(source.chunks_indexed)}</td>
                    <td>
                      <LastSync source={source} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <Pager
            label="Pages of data sources"
            page={page}
            pages={pages}
            hrefOf={(n) => `/data-sources?page=${n}`}
          />
        </>
      ) : null}
    </section>
  );
}

/** The source's status, and for a connector its connection. */
export function SourceStatus({ source }: { readonly source: DataSource }) {
  return (
    <span
      class="source-status"
      data-status={source.current_job && isSynced(source.type) ? 'processing' : source.status}
    >
      {sourceStatusWords(source)}
      {source.connection_status ? (
        <span class="source-status__connection" data-connection={source.connection_status}>
          {source.connection_status}
        </span>
      ) : null}
    </span>
  );
}

/**
 * When the last sync ended, and how: "2 hours ago", "3 minutes ago (failed)",
 * "Syncing now", "Not yet"; a file source is not synced (its files are
 * indexed as they arrive), so it says that instead.
 */
export function LastSync({ source }: { readonly source: DataSource }) {
  if (!isSynced(source.type)) return <>Indexed on upload</>;
  const job = source.last_job;
  if (!job?.finished_at) return <>{source.current_job ? 'Syncing now' : 'Not yet'}</>;
  return (
    <>
      <time dateTime={job.finished_at} title={formatDateTime(job.finished_at)}>
        {formatRelative(job.finished_at)}
      </time>
      {job.status === 'failed' ? ' (failed)' : ''}
    </>
  );
}
