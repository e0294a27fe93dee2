import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  describeDocuments,
  describeEstimate,
  isSyncRunning,
  nextPollDelay,
  progressMark,
  retryDelay,
  type SyncStatus,
} from './sync-progress';
import type { DataSource } from './words';

/**
 * The source's sync: "Sync now", and while a job runs its
 * progress, read again and again without a reload (soon, then less
 * often while nothing moves), until it ends; then its outcome, the pages it
 * skipped with their reasons and, for a failed sync, its error.
 */
export function SyncPanel({
  source,
  canChange,
  onFinished,
}: {
  readonly source: DataSource;
  readonly canChange: boolean;
  readonly onFinished: () => void;
}) {
  const { session } = useApp();
  const status = useSignal<SyncStatus | null>(null);
  const readError = useSignal<unknown>(null);
  /** Bumped to start reading again (after "Sync now"). `onFinished` also runs when a job is first seen running. */
  const watch = useSignal(0);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay: number | null = null;
    let mark: string | null = null;
    let sawRunning = false;
    const read = async () => {
      try {
        const next = await unwrap(
          session.api.GET('/api/v1/data-sources/{id}/status', {
            params: { path: { id: source.id } },
            signal: controller.signal,
          }),
        );
        if (controller.signal.aborted) return;
        status.value = next;
        readError.value = null;
        if (!isSyncRunning(next)) {
          if (sawRunning) finished.current();
          return;
        }
        // The source's own status (Syncing) is read again once, as the job is seen to run.
        if (!sawRunning) finished.current();
        sawRunning = true;
        const nextMark = progressMark(next);
        delay = nextPollDelay(delay, nextMark !== mark);
        mark = nextMark;
        timer = setTimeout(() => void read(), delay);
      } catch (error) {
        if (controller.signal.aborted) return;
        readError.value = error;
        // A read that failed (429, a dropped connection) is tried again later, not given up.
        timer = setTimeout(() => void read(), retryDelay(error));
      }
    };
    void read();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [source.id, watch.value]);

  const syncNow = useAction(async () => {
    await unwrap(
      session.api.POST('/api/v1/data-sources/{id}/sync', {
        params: { path: { id: source.id } },
      }),
    );
    watch.value += 1;
  });

  const current = status.value;
  const running = isSyncRunning(current);
  return (
    <section class="panel" aria-labelledby="sync-heading">
      <h2 id="sync-heading">{running ? 'Sync in progress' : 'Sync'}</h2>
      {canChange ? (
        <p>
          <button
            type="button"
            class="button button--primary"
            disabled={syncNow.pending.value || running}
            onClick={() => void syncNow.run()}
          >
            Sync now
          </button>
        </p>
      ) : null}
      {syncNow.failure.value ? <ErrorNotice error={syncNow.failure.value} /> : null}
      {current ? <SyncProgress status={current} /> : null}
      {readError.value ? <ErrorNotice error={readError.value} /> : null}
    </section>
  );
}

function SyncProgress({ status }: { readonly status: SyncStatus }) {
  if (status.job_id === null) return <p>This data source has not been synced yet.</p>;
  const running = isSyncRunning(status);
  const estimate = running ? describeEstimate(status.estimated_completion, Date.now()) : null;
  const more = status.documents_skipped - status.skipped.length;
  return (
    <div class="sync">
      <div class="sync__bar">
        <label for="sync-progress">{running ? 'Progress' : 'Last sync'}</label>
        <progress id="sync-progress" max={100} value={status.progress_pct}>
          {status.progress_pct}%
        </progress>
        <span class="sync__pct">{status.progress_pct}%</span>
      </div>
      <p class="sync__outcome" role="status">
        {outcome(status)}
      </p>
      <dl class="facts">
        <dt>Documents processed</dt>
        <dd>{describeDocuments(status.documents_processed, status.documents_total)}</dd>
        <dt>Chunks indexed</dt>
        <dd>{formatNumber(status.chunks_indexed)}</dd>
        {status.started_at ? (
          <>
            <dt>Started</dt>
            <dd>
              <time dateTime={status.started_at} title={formatDateTime(status.started_at)}>
                {formatRelative(status.started_at)}
              </time>
            </dd>
          </>
        ) : null}
        {running ? (
          <>
            <dt>Estimated completion</dt>
            <dd>{estimate ?? 'Not known yet: the service estimates it from the pace so far.'}</dd>
          </>
        ) : null}
        {status.finished_at ? (
          <>
            <dt>Finished</dt>
            <dd>
              <time dateTime={status.finished_at} title={formatDateTime(status.finished_at)}>
                {formatRelative(status.finished_at)}
              </time>
            </dd>
          </>
        ) : null}
        <dt>Skipped</dt>
        <dd>{formatNumber(status.documents_skipped)}</dd>
      </dl>
      {status.job_status === 'failed' && status.error ? (
        <div class="error-notice" role="alert">
          <p>The sync failed: {status.error}</p>
        </div>
      ) : null}
      {status.skipped.length > 0 ? (
        <details class="sync__skipped" open={running || status.documents_skipped <= 5}>
          <summary>
            {formatNumber(status.documents_skipped)}{' '}
            {status.documents_skipped === 1 ? 'document' : 'documents'} skipped
          </summary>
          <ul aria-label="Skipped documents">
            {status.skipped.map((item) => (
              <li key={item.key}>
                <span class="sync__key">{item.key}</span>: {item.reason}
              </li>
            ))}
          </ul>
          {more > 0 ? <p>and {formatNumber(more)} more, not named.</p> : null}
        </details>
      ) : null}
    </div>
  );
}

function outcome(status: SyncStatus): string {
  switch (status.job_status) {
    case 'queued':
      return 'Waiting to start…';
    case 'running':
      return `Syncing: ${status.progress_pct}% done.`;
    case 'succeeded':
      return 'The last sync finished.';
    case 'failed':
      return 'The last sync failed.';
    default:
      return '';
  }
}
