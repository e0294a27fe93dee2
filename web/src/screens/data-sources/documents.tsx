import { useSignal } from '@preact/signals';
import { useEffect, useId, useRef } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { ErrorNotice } from '../../components/error-notice';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import '../../components/filters.css';
import {
  DOCUMENT_STATUS_NAMES,
  type DocumentSort,
  type DocumentStatus,
  type DocumentsDeleted,
  describeDeleted,
  documentStatusWords,
  listNames,
  SORT_NAMES,
  type SourceDocument,
} from './documents-words';
import { formatBytes, type Upload } from './uploads';
import type { DataSource } from './words';

const PAGE_SIZE = 50;
/** Typing pauses this long before the list is asked again. */
const SEARCH_PAUSE_MS = 250;
/** While a document is being indexed (re-indexed, say), the list is read again this often. */
const REFRESH_WHILE_INDEXING_MS = 2_000;

/**
 * A source's documents as one table, whatever they came from: a file
 * source's uploads, a website's crawled pages, a connector's items.
 * Searched by name or address, filtered by status, sorted; a file source's
 * files can be selected and deleted together, or indexed again one by one;
 * any document's chunks can be read in a preview.
 */
export function DocumentsPanel({
  source,
  canChange,
  uploads = [],
  version = 0,
  onChanged,
}: {
  readonly source: DataSource;
  readonly canChange: boolean;
  /** This page's uploads in flight, whose state is more current than the service's record. */
  readonly uploads?: readonly Upload[];
  /** Bumped by the page when the documents changed (an upload indexed). */
  readonly version?: number;
  readonly onChanged: () => void;
}) {
  const { session } = useApp();
  const isFiles = source.type === 'file';
  const typed = useSignal('');
  const q = useSignal('');
  const sort = useSignal<DocumentSort>('updated');
  const status = useSignal<DocumentStatus | ''>('');
  const offset = useSignal(0);
  const round = useSignal(0);
  const selected = useSignal<ReadonlySet<string>>(new Set());
  const confirming = useSignal(false);
  const outcome = useSignal<DocumentsDeleted | null>(null);
  const previewing = useSignal<SourceDocument | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => {
      if (q.value === typed.value.trim()) return;
      q.value = typed.value.trim();
      offset.value = 0;
    }, SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed.value]);

  const documents = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/data-sources/{id}/documents', {
          params: {
            path: { id: source.id },
            query: {
              limit: String(PAGE_SIZE),
              offset: String(offset.value),
              sort: sort.value,
              ...(q.value ? { q: q.value } : {}),
              ...(status.value ? { status: status.value } : {}),
            },
          },
          signal,
        }),
      ),
    [source.id, q.value, sort.value, status.value, offset.value, round.value, version],
  );
  const list = documents.data.value;
  const changed = useRef(onChanged);
  changed.current = onChanged;

  // A document being indexed (after "Re-index") moves to indexed or failed without a reload.
  const indexing = list?.documents.some((document) => document.status === 'processing') ?? false;
  useEffect(() => {
    if (!indexing) return undefined;
    const timer = setTimeout(() => {
      round.value += 1;
    }, REFRESH_WHILE_INDEXING_MS);
    return () => clearTimeout(timer);
  }, [indexing, list]);

  const chosen = list?.documents.filter((document) => selected.value.has(document.id)) ?? [];
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected.value);
    if (on) next.add(id);
    else next.delete(id);
    selected.value = next;
  };
  const remove = useAction(async () => {
    const ids = chosen.map((document) => document.id);
    const answer = await unwrap(
      session.api.POST('/api/v1/data-sources/{id}/documents/delete', {
        params: { path: { id: source.id } },
        body: { document_ids: ids },
      }),
    );
    outcome.value = answer;
    // What failed stays selected, to try again; what went is forgotten.
    selected.value = new Set(answer.failed.map((failure) => failure.document_id));
    confirming.value = false;
    round.value += 1;
    changed.current();
  });
  const reindex = useAction(async (document: SourceDocument) => {
    await unwrap(
      session.api.POST('/api/v1/data-sources/{id}/documents/{document_id}/reindex', {
        params: { path: { id: source.id, document_id: document.id } },
      }),
    );
    round.value += 1;
  });

  const selectable = isFiles && canChange;
  const noun = isFiles ? 'file' : source.type === 'website' ? 'page' : 'document';
  const nouns = `${noun}s`;
  const filtered = q.value !== '' || status.value !== '';
  const pageDocuments = list?.documents ?? [];
  const allOnPage =
    pageDocuments.length > 0 && pageDocuments.every((document) => selected.value.has(document.id));
  const namesById = new Map(pageDocuments.map((document) => [document.id, document.name]));

  return (
    <section class="panel" aria-labelledby="documents-heading">
      <h2 id="documents-heading">{isFiles ? 'Files' : 'Documents'}</h2>
      <search aria-label={`Find ${nouns}`}>
        <form
          class="filters documents__filters"
          onSubmit={(event) => {
            event.preventDefault();
            q.value = typed.value.trim();
            offset.value = 0;
          }}
        >
          <div class="filters__field">
            <label for="documents-search">Search {nouns}</label>
            <input
              id="documents-search"
              type="search"
              value={typed.value}
              placeholder={isFiles ? 'Name' : 'Title or address'}
              maxLength={200}
              onInput={(event) => {
                typed.value = event.currentTarget.value;
              }}
            />
          </div>
          <div class="filters__field">
            <label for="documents-sort">Sort by</label>
            <select
              id="documents-sort"
              value={sort.value}
              onChange={(event) => {
                sort.value = event.currentTarget.value as DocumentSort;
                offset.value = 0;
              }}
            >
              {(Object.keys(SORT_NAMES) as DocumentSort[])
                // A synced document has no size or date of its own to sort by.
                .filter((value) => isFiles || value === 'name' || value === 'chunks')
                .map((value) => (
                  <option key={value} value={value}>
                    {SORT_NAMES[value]}
                  </option>
                ))}
            </select>
          </div>
          {isFiles ? (
            <div class="filters__field">
              <label for="documents-status">Status</label>
              <select
                id="documents-status"
                value={status.value}
                onChange={(event) => {
                  status.value = event.currentTarget.value as DocumentStatus | '';
                  offset.value = 0;
                }}
              >
                <option value="">Any</option>
                {(Object.keys(DOCUMENT_STATUS_NAMES) as DocumentStatus[]).map((value) => (
                  <option key={value} value={value}>
                    {DOCUMENT_STATUS_NAMES[value]}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
        </form>
      </search>
      {documents.error.value ? <ErrorNotice error={documents.error.value} /> : null}
      {outcome.value ? <DeleteOutcome outcome={outcome.value} namesById={namesById} /> : null}
      {reindex.failure.value ? <ErrorNotice error={reindex.failure.value} /> : null}
      {list && list.total === 0 ? (
        <p>
          {filtered
            ? `No ${nouns} match.`
            : isFiles
              ? 'No files yet.'
              : 'No documents yet: they appear here once a sync has read them.'}
        </p>
      ) : null}
      {selectable && list && list.total > 0 ? (
        <div class="documents__bulk">
          <button
            type="button"
            class="button button--danger"
            disabled={chosen.length === 0}
            aria-haspopup="dialog"
            onClick={() => {
              outcome.value = null;
              confirming.value = true;
            }}
          >
            {chosen.length === 0 ? 'Delete selected' : `Delete ${chosen.length} selected`}
          </button>
        </div>
      ) : null}
      {list && list.documents.length > 0 ? (
        <TableScroll label="Documents">
          <table class="table documents__table">
            <caption>
              {formatNumber(list.total)} {list.total === 1 ? noun : nouns}
              {filtered ? ' found' : ''}
            </caption>
            <thead>
              <tr>
                {selectable ? (
                  <th scope="col" class="documents__select">
                    <input
                      type="checkbox"
                      aria-label={`Select every ${noun} shown`}
                      checked={allOnPage}
                      onChange={(event) => {
                        const on = event.currentTarget.checked;
                        const next = new Set(selected.value);
                        for (const document of pageDocuments) {
                          if (on) next.add(document.id);
                          else next.delete(document.id);
                        }
                        selected.value = next;
                      }}
                    />
                  </th>
                ) : null}
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Chunks</th>
                {isFiles ? (
                  <>
                    <th scope="col">Size</th>
                    <th scope="col">Changed</th>
                  </>
                ) : null}
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.documents.map((document) => (
                <tr key={document.id}>
                  {selectable ? (
                    <td class="documents__select">
                      <input
                        type="checkbox"
                        aria-label={`Select ${document.name}`}
                        checked={selected.value.has(document.id)}
                        onChange={(event) => toggle(document.id, event.currentTarget.checked)}
                      />
                    </td>
                  ) : null}
                  <th scope="row" class="documents__name">
                    {document.name}
                    {!isFiles && document.url ? (
                      <a class="documents__url" href={document.url} rel="noreferrer noopener">
                        {document.url}
                      </a>
                    ) : null}
                  </th>
                  <td data-status={document.status}>{documentStatusWords(document, uploads)}</td>
                  <td>{formatNumber(document.chunks_indexed)}</td>
                  {isFiles ? (
                    <>
                      <td>
                        {document.size_bytes === null ? '—' : formatBytes(document.size_bytes)}
                      </td>
                      <td>
                        {document.updated_at ? (
                          <time
                            dateTime={document.updated_at}
                            title={formatDateTime(document.updated_at)}
                          >
                            {formatRelative(document.updated_at)}
                          </time>
                        ) : (
                          '—'
                        )}
                      </td>
                    </>
                  ) : null}
                  <td>
                    <div class="row-actions">
                      <button
                        type="button"
                        class="button button--small"
                        aria-haspopup="dialog"
                        aria-label={`Show the chunks of ${document.name}`}
                        disabled={document.chunks_indexed === 0}
                        onClick={() => {
                          previewing.value = document;
                        }}
                      >
                        Chunks
                      </button>
                      {selectable &&
                      document.status !== 'awaiting_upload' &&
                      document.status !== 'processing' ? (
                        <button
                          type="button"
                          class="button button--small"
                          aria-label={`Index ${document.name} again`}
                          disabled={reindex.pending.value}
                          onClick={() => void reindex.run(document)}
                        >
                          Re-index
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      {list && list.total > PAGE_SIZE ? (
        <nav class="pager" aria-label={`Pages of ${nouns}`}>
          <button
            type="button"
            class="button button--small"
            disabled={offset.value === 0}
            onClick={() => {
              offset.value = Math.max(0, offset.value - PAGE_SIZE);
            }}
          >
            Previous page
          </button>
          <span>
            {formatNumber(offset.value + 1)}–
            {formatNumber(Math.min(list.total, offset.value + PAGE_SIZE))} of{' '}
            {formatNumber(list.total)}
          </span>
          <button
            type="button"
            class="button button--small"
            disabled={offset.value + PAGE_SIZE >= list.total}
            onClick={() => {
              offset.value += PAGE_SIZE;
            }}
          >
            Next page
          </button>
        </nav>
      ) : null}
      <ConfirmDialog
        open={confirming.value}
        onClose={() => {
          confirming.value = false;
        }}
        question={`Delete ${chosen.length} ${chosen.length === 1 ? 'file' : 'files'}?`}
        confirm={`Delete ${chosen.length === 1 ? 'file' : 'files'}`}
        working="Deleting…"
        action={remove}
      >
        <p>
          {listNames(chosen.map((document) => document.name))}{' '}
          {chosen.length === 1 ? 'leaves' : 'leave'} {source.name}: the stored{' '}
          {chosen.length === 1 ? 'file and its chunks go' : 'files and their chunks go'}, and agents
          no longer answer from {chosen.length === 1 ? 'it' : 'them'}.
        </p>
      </ConfirmDialog>
      <ChunkPreview
        source={source}
        document={previewing.value}
        onClose={() => {
          previewing.value = null;
        }}
      />
    </section>
  );
}

function DeleteOutcome({
  outcome,
  namesById,
}: {
  readonly outcome: DocumentsDeleted;
  readonly namesById: ReadonlyMap<string, string>;
}) {
  return (
    <div class={outcome.failed.length > 0 ? 'error-notice' : 'notice'} role="status">
      <p>{describeDeleted(outcome)}</p>
      {outcome.failed.length > 0 ? (
        <ul aria-label="Not deleted">
          {outcome.failed.map((failure) => (
            <li key={failure.document_id}>
              {namesById.get(failure.document_id) ?? failure.document_id}: {failure.error}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A document's chunks as retrieval reads them, in order, with the headings above each. */
function ChunkPreview({
  source,
  document,
  onClose,
}: {
  readonly source: DataSource;
  /** The document shown; `null` when the preview is closed. */
  readonly document: SourceDocument | null;
  readonly onClose: () => void;
}) {
  const heading = useId();
  return (
    <Dialog open={document !== null} onClose={onClose} labelledBy={heading} class="chunk-preview">
      {document ? (
        <ChunkPreviewBody source={source} document={document} heading={heading} onClose={onClose} />
      ) : null}
    </Dialog>
  );
}

function ChunkPreviewBody({
  source,
  document,
  heading,
  onClose,
}: {
  readonly source: DataSource;
  readonly document: SourceDocument;
  readonly heading: string;
  readonly onClose: () => void;
}) {
  const { session } = useApp();
  const chunks = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/data-sources/{id}/documents/{document_id}/chunks', {
          params: {
            path: { id: source.id, document_id: document.id },
            query: { limit: '20' },
          },
          signal,
        }),
      ),
    [source.id, document.id],
  );
  const preview = chunks.data.value;
  return (
    <>
      <h2 id={heading}>Chunks of {document.name}</h2>
      {chunks.error.value ? <ErrorNotice error={chunks.error.value} /> : null}
      {chunks.loading.value && !preview ? <p role="status">Loading the chunks…</p> : null}
      {preview ? (
        <>
          <p>
            {preview.total > preview.chunks.length
              ? `The first ${formatNumber(preview.chunks.length)} of ${formatNumber(preview.total)} chunks.`
              : `${formatNumber(preview.total)} ${preview.total === 1 ? 'chunk' : 'chunks'}.`}
          </p>
          <ol class="chunk-preview__list" aria-label="Chunks">
            {preview.chunks.map((chunk) => (
              <li key={chunk.chunk_id} class="chunk-preview__chunk">
                {chunk.heading_path.length > 0 ? (
                  <p class="chunk-preview__headings">{chunk.heading_path.join(' › ')}</p>
                ) : null}
                <p class="chunk-preview__text">{chunk.text}</p>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <div class="form__actions">
        <button type="button" class="button" onClick={onClose}>
          Close
        </button>
      </div>
    </>
  );
}
