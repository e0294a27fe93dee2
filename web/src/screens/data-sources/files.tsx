import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { sendFile, type UploadTicket } from '../../api/upload';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { nextPollDelay, retryDelay } from './sync-progress';
import {
  batchEntry,
  batches,
  describeUpload,
  formatBytes,
  refusedEntries,
  settle,
  summarizeUploads,
  type Upload,
  type UploadedFile,
} from './uploads';
import type { DataSource } from './words';

/** Files sent at once; the rest wait their turn. */
const PARALLEL_UPLOADS = 3;
const ACCEPT = '.pdf,.docx,.html,.htm,.xhtml,.md,.markdown,.txt,.text,.csv';

const FILE_STATUS_NAMES: Readonly<Record<UploadedFile['status'], string>> = {
  awaiting_upload: 'Waiting for its upload',
  processing: 'Indexing',
  indexed: 'Indexed',
  failed: 'Failed',
};

/**
 * A file source's files: many dropped (or chosen) at once go
 * through one batch of presigned uploads, each with its own progress and
 * final status, read from the file list until it is indexed or failed.
 */
export function FilesPanel({
  source,
  canChange,
  onChanged,
}: {
  readonly source: DataSource;
  readonly canChange: boolean;
  readonly onChanged: () => void;
}) {
  const { session } = useApp();
  const round = useSignal(0);
  const uploads = useSignal<readonly Upload[]>([]);
  const batchError = useSignal<unknown>(null);
  const files = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/data-sources/{id}/files', {
          params: { path: { id: source.id } },
          signal,
        }),
      ),
    [source.id, round.value],
  );
  const changed = useRef(onChanged);
  changed.current = onChanged;

  const update = (key: string, change: Partial<Upload>) => {
    uploads.value = uploads.value.map((upload) =>
      upload.key === key ? { ...upload, ...change } : upload,
    );
  };

  // While an upload is being indexed, the file list is read again (soon, then less often) until each ends.
  const indexing = uploads.value.some((upload) => upload.phase === 'indexing');
  useEffect(() => {
    if (!indexing) return undefined;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay: number | null = null;
    const read = async () => {
      try {
        const listed = await unwrap(
          session.api.GET('/api/v1/data-sources/{id}/files', {
            params: { path: { id: source.id } },
            signal: controller.signal,
          }),
        );
        if (controller.signal.aborted) return;
        const byId = new Map(listed.files.map((file) => [file.id, file]));
        const before = uploads.value;
        const after = before.map((upload) =>
          settle(upload, upload.documentId ? byId.get(upload.documentId) : undefined),
        );
        const moved = after.some((upload, index) => upload !== before[index]);
        uploads.value = after;
        files.data.value = listed;
        if (moved) changed.current();
        if (after.some((upload) => upload.phase === 'indexing')) {
          delay = nextPollDelay(delay, moved);
          timer = setTimeout(() => void read(), delay);
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        timer = setTimeout(() => void read(), retryDelay(error));
      }
    };
    timer = setTimeout(() => void read(), 500);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [indexing]);

  const add = async (chosen: readonly File[]) => {
    if (chosen.length === 0) return;
    batchError.value = null;
    const stamp = Date.now();
    const rows: Upload[] = chosen.map((file, index) => ({
      key: `${stamp}-${index}`,
      name: file.name,
      size: file.size,
      phase: 'waiting',
      sent: 0,
      message: null,
      documentId: null,
    }));
    uploads.value = [...rows, ...uploads.value];
    const pairs = chosen.map((file, index) => ({ file, row: rows[index] as Upload }));
    const tickets: Array<{ file: File; key: string; ticket: UploadTicket }> = [];
    for (const batch of batches(pairs)) {
      tickets.push(...(await presign(batch)));
    }
    round.value += 1;
    let next = 0;
    const worker = async () => {
      while (next < tickets.length) {
        const item = tickets[next];
        next += 1;
        if (!item) continue;
        update(item.key, { phase: 'sending', sent: 0 });
        try {
          await sendFile(item.ticket, item.file, (sent) => update(item.key, { sent }));
          update(item.key, { phase: 'indexing', sent: 1 });
        } catch (error) {
          update(item.key, {
            phase: 'failed',
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, () => worker()));
  };

  /**
   * One batch's tickets. The service checks every entry before it keeps any:
   * refused entries are marked with the reason and the rest are asked
   * for again, once; any other refusal fails the batch's rows with its words.
   */
  const presign = async (
    batch: ReadonlyArray<{ file: File; row: Upload }>,
  ): Promise<Array<{ file: File; key: string; ticket: UploadTicket }>> => {
    let remaining = batch.filter(({ file, row }) => {
      if (file.size > 0) return true;
      update(row.key, { phase: 'refused', message: 'The file is empty.' });
      return false;
    });
    for (let attempt = 0; attempt < 2 && remaining.length > 0; attempt += 1) {
      try {
        const answer = await unwrap(
          session.api.POST('/api/v1/data-sources/{id}/files', {
            params: { path: { id: source.id } },
            body: { files: remaining.map(({ file }) => batchEntry(file)) },
          }),
        );
        const tickets = 'tickets' in answer ? answer.tickets : [answer];
        return tickets.flatMap((ticket, index) => {
          const pair = remaining[index];
          if (!pair) return [];
          update(pair.row.key, { documentId: ticket.document_id });
          return [{ file: pair.file, key: pair.row.key, ticket }];
        });
      } catch (error) {
        const refused = refusedEntries(error);
        if (refused.size === 0 || attempt === 1) {
          batchError.value = error;
          for (const { row } of remaining) {
            update(row.key, {
              phase: 'failed',
              message: error instanceof Error ? error.message : String(error),
            });
          }
          return [];
        }
        for (const [index, message] of refused) {
          const pair = remaining[index];
          if (pair) update(pair.row.key, { phase: 'refused', message });
        }
        remaining = remaining.filter((_, index) => !refused.has(index));
      }
    }
    return [];
  };

  const list = files.data.value;
  return (
    <section class="panel" aria-labelledby="files-heading">
      <h2 id="files-heading">Files</h2>
      {canChange ? <DropZone onFiles={(chosen) => void add(chosen)} /> : null}
      {batchError.value ? <ErrorNotice error={batchError.value} /> : null}
      {uploads.value.length > 0 ? <UploadList uploads={uploads.value} /> : null}
      {files.error.value ? <ErrorNotice error={files.error.value} /> : null}
      {list && list.files.length === 0 && uploads.value.length === 0 ? <p>No files yet.</p> : null}
      {list && list.files.length > 0 ? (
        <FileTable
          source={source}
          files={list.files}
          canChange={canChange}
          onDeleted={() => {
            round.value += 1;
            changed.current();
          }}
        />
      ) : null}
    </section>
  );
}

/** Drop files here (a pointer's way), or choose them (the keyboard's and screen reader's). */
function DropZone({ onFiles }: { readonly onFiles: (files: readonly File[]) => void }) {
  const over = useSignal(false);
  const input = useRef<HTMLInputElement>(null);
  return (
    <fieldset
      class="drop-zone"
      data-over={over.value ? 'true' : undefined}
      onDragOver={(event) => {
        event.preventDefault();
        over.value = true;
      }}
      onDragLeave={() => {
        over.value = false;
      }}
      onDrop={(event) => {
        event.preventDefault();
        over.value = false;
        onFiles([...(event.dataTransfer?.files ?? [])]);
      }}
    >
      <legend>Add files</legend>
      <p>Drop files here, or</p>
      <label class="button" for="file-input">
        Choose files
      </label>
      <input
        id="file-input"
        class="visually-hidden"
        type="file"
        multiple
        accept={ACCEPT}
        ref={input}
        onChange={(event) => {
          const target = event.currentTarget;
          onFiles([...(target.files ?? [])]);
          target.value = '';
        }}
      />
      <p class="form__hint">
        PDF, DOCX, HTML, Markdown, plain text or CSV, up to 50 MiB each; up to 100 at a time in one
        request, more in several.
      </p>
    </fieldset>
  );
}

function UploadList({ uploads }: { readonly uploads: readonly Upload[] }) {
  return (
    <div class="uploads">
      <p class="uploads__summary" role="status">
        {summarizeUploads(uploads)}
      </p>
      <ul class="uploads__list" aria-label="Uploads">
        {uploads.map((upload) => (
          <li key={upload.key} class="upload" data-phase={upload.phase}>
            <span class="upload__name">{upload.name}</span>
            <span class="upload__size">{formatBytes(upload.size)}</span>
            <progress
              aria-label={`${upload.name} upload`}
              max={100}
              value={upload.phase === 'waiting' ? 0 : Math.round(upload.sent * 100)}
            />
            <span class="upload__status">{describeUpload(upload)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function FileTable({
  source,
  files,
  canChange,
  onDeleted,
}: {
  readonly source: DataSource;
  readonly files: readonly UploadedFile[];
  readonly canChange: boolean;
  readonly onDeleted: () => void;
}) {
  return (
    <TableScroll label="Files">
      <table class="table">
        <caption>
          {formatNumber(files.length)} {files.length === 1 ? 'file' : 'files'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Size</th>
            <th scope="col">Status</th>
            <th scope="col">Chunks</th>
            <th scope="col">Added</th>
            {canChange ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <tr key={file.id}>
              <th scope="row">{file.filename}</th>
              <td>{file.size_bytes === null ? '—' : formatBytes(file.size_bytes)}</td>
              <td>
                {FILE_STATUS_NAMES[file.status]}
                {file.status === 'failed' && file.error ? `: ${file.error}` : ''}
              </td>
              <td>{formatNumber(file.chunks_indexed)}</td>
              <td>
                <time dateTime={file.created_at} title={formatDateTime(file.created_at)}>
                  {formatRelative(file.created_at)}
                </time>
              </td>
              {canChange ? (
                <td>
                  <DeleteFile sourceId={source.id} file={file} onDeleted={onDeleted} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function DeleteFile({
  sourceId,
  file,
  onDeleted,
}: {
  readonly sourceId: string;
  readonly file: UploadedFile;
  readonly onDeleted: () => void;
}) {
  const { session } = useApp();
  const confirming = useSignal(false);
  const remove = useAction(async () => {
    await unwrap(
      session.api.DELETE('/api/v1/data-sources/{id}/files/{document_id}', {
        params: { path: { id: sourceId, document_id: file.id } },
      }),
    );
    onDeleted();
  });
  return (
    <div class="row-actions">
      {confirming.value ? (
        <>
          <button
            type="button"
            class="button button--small button--danger"
            disabled={remove.pending.value}
            onClick={() => void remove.run()}
          >
            Delete {file.filename}
          </button>
          <button
            type="button"
            class="button button--small"
            onClick={() => {
              confirming.value = false;
            }}
          >
            Keep
          </button>
        </>
      ) : (
        <button
          type="button"
          class="button button--small"
          aria-label={`Delete ${file.filename}…`}
          onClick={() => {
            confirming.value = true;
          }}
        >
          Delete
        </button>
      )}
      {remove.failure.value ? <ErrorNotice error={remove.failure.value} /> : null}
    </div>
  );
}
