import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { sendFile, type UploadTicket } from '../../api/upload';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { useApp } from '../../state/app-context';
import { DocumentsPanel } from './documents';
import { listNames, namesAlreadyThere } from './documents-words';
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
} from './uploads';
import type { DataSource } from './words';

/** Files sent at once; the rest wait their turn. */
const PARALLEL_UPLOADS = 3;
const ACCEPT = '.pdf,.docx,.html,.htm,.xhtml,.md,.markdown,.txt,.text,.csv';

/**
 * A file source's files: many dropped (or chosen) at once go
 * through one batch of presigned uploads, each with its own progress and
 * final status, read from the file list until it is indexed or failed.
 * A name the source already has replaces that file, once the person
 * agreed; the files themselves are listed below (DocumentsPanel), with the
 * state of those on their way taken from here.
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
  /** Files whose names the source already has, waiting for "Replace" or "Cancel". */
  const replacing = useSignal<{ files: readonly File[]; names: string[] } | null>(null);
  /** Bumped when the documents below should be read again. */
  const version = useSignal(0);
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
        if (moved) {
          version.value += 1;
          changed.current();
        }
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

  /** Asks first when a chosen name is already in the source (the upload replaces that file). */
  const choose = (chosen: readonly File[]) => {
    if (chosen.length === 0) return;
    const names = namesAlreadyThere(chosen, files.data.value?.files ?? []);
    if (names.length > 0) replacing.value = { files: chosen, names };
    else void add(chosen);
  };
  const replace = useAction(async () => {
    const pending = replacing.value;
    replacing.value = null;
    if (pending) void add(pending.files);
  });

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
    version.value += 1;
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
          update(pair.row.key, {
            documentId: ticket.document_id,
            presignedAt: ticket.file.updated_at,
          });
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

  const pending = replacing.value;
  return (
    <>
      {canChange ? (
        <section class="panel" aria-labelledby="add-files-heading">
          <h2 id="add-files-heading" class="visually-hidden">
            Add files
          </h2>
          <DropZone onFiles={choose} />
          {batchError.value ? <ErrorNotice error={batchError.value} /> : null}
          {uploads.value.length > 0 ? <UploadList uploads={uploads.value} /> : null}
          {files.error.value ? <ErrorNotice error={files.error.value} /> : null}
        </section>
      ) : null}
      <DocumentsPanel
        source={source}
        canChange={canChange}
        uploads={uploads.value}
        version={version.value}
        onChanged={() => {
          round.value += 1;
          changed.current();
        }}
      />
      <ConfirmDialog
        open={pending !== null}
        onClose={() => {
          replacing.value = null;
        }}
        question={
          pending && pending.names.length === 1
            ? `Replace ${pending.names[0]}?`
            : `Replace ${pending?.names.length ?? 0} files?`
        }
        confirm="Replace"
        action={replace}
      >
        <p>
          {listNames(pending?.names ?? [])} {pending?.names.length === 1 ? 'is' : 'are'} already in{' '}
          {source.name}. Uploading replaces{' '}
          {pending?.names.length === 1 ? 'that file: its' : 'those files: their'} content and chunks
          become the new file’s once it is indexed.
        </p>
      </ConfirmDialog>
    </>
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
