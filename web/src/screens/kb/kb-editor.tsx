import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  type Draft,
  draftOf,
  explainSaveFailure,
  isDirty,
  KB_PATH,
  type KbArticle,
  type KbStatus,
  parseTags,
  statusLabel,
} from './kb.state';
import { LeaveGuard } from './leave-guard';
import { renderMarkdown } from './markdown';

/** D17 and the limits, so the browser stops the person before the API would refuse. */
const TITLE_MAX = 500;
const CONTENT_MAX = 200_000;
/** The preview follows the typing after this pause (a long article renders in a few milliseconds, not zero). */
const PREVIEW_DELAY_MS = 150;

/** A button outside the submit path still gets the form's native checks (a title is required). */
function whenValid(action: () => Promise<unknown>) {
  return (event: MouseEvent) => {
    if ((event.currentTarget as HTMLButtonElement).form?.reportValidity()) void action();
  };
}

/**
 * Writing an article (`train` and above): title, tags and Markdown
 * beside its preview. Saving records a new version; the save
 * names the version it was made from, so a save over someone else's
 * is refused and said, never merged. Publishing and unpublishing save too:
 * status is a field of each version.
 */
export function KbEditor({
  article,
  onSaved,
}: {
  /** null: a new article. */
  readonly article: KbArticle | null;
  /** The article as saved, to show from here on (the screen keeps it). */
  readonly onSaved: (article: KbArticle) => void;
}) {
  const { session } = useApp();
  const location = useLocation();
  const saved = useSignal<Draft>(draftOf(article));
  const draft = useSignal<Draft>(draftOf(article));
  /** Which button the running save is: only "Save" says "Saving…". */
  const savingAs = useSignal<KbStatus | 'save'>('save');
  const conflict = useSignal(false);
  const notice = useSignal<string | null>(null);
  const preview = useSignal(renderMarkdown(draft.value.content));
  const dirty = isDirty(draft.value, saved.value);

  useEffect(() => {
    const timer = setTimeout(() => {
      preview.value = renderMarkdown(draft.value.content);
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft.value.content]);

  const edit = (field: keyof Draft) => (event: Event) => {
    draft.value = { ...draft.value, [field]: (event.currentTarget as HTMLInputElement).value };
    notice.value = null;
  };

  const write = async (status?: KbStatus) => {
    const fields = {
      title: draft.value.title.trim(),
      content: draft.value.content,
      tags: parseTags(draft.value.tags),
      ...(status ? { status } : {}),
    };
    if (!article) {
      const created = await unwrap(session.api.POST('/api/v1/kb', { body: fields }));
      saved.value = draft.value;
      location.route(`${KB_PATH}/${created.id}`, true);
      return;
    }
    const updated = await unwrap(
      session.api.PUT('/api/v1/kb/{id}', {
        params: { path: { id: article.id } },
        body: { ...fields, expected_version: article.version },
      }),
    );
    saved.value = draftOf(updated);
    draft.value = draftOf(updated);
    notice.value =
      status === 'published'
        ? `Published as version ${updated.version}.`
        : status === 'draft'
          ? `Unpublished: saved as version ${updated.version}, a draft.`
          : `Saved as version ${updated.version}.`;
    onSaved(updated);
  };
  const saving = useAction((status?: KbStatus) =>
    write(status).catch((error: unknown) => {
      // A save over someone else's version is said as a conflict, with a way to load theirs.
      const explained = explainSaveFailure(error);
      conflict.value = explained !== error;
      throw explained;
    }),
  );
  /** After a conflict: the article as it is now, the person's edits dropped (they chose to). */
  const reloading = useAction(async () => {
    if (!article) return;
    const latest = await unwrap(
      session.api.GET('/api/v1/kb/{id}', { params: { path: { id: article.id } } }),
    );
    saved.value = draftOf(latest);
    draft.value = draftOf(latest);
    saving.reset();
    conflict.value = false;
    notice.value = `Loaded version ${latest.version}.`;
    onSaved(latest);
  });
  const save = (status?: KbStatus) => {
    savingAs.value = status ?? 'save';
    reloading.reset();
    conflict.value = false;
    notice.value = null;
    return saving.run(status);
  };

  const status = article?.status ?? 'draft';
  const busy = saving.pending.value;
  // One notice for the last failure, the save's or the reload's.
  const failure = saving.failure.value ?? reloading.failure.value;
  return (
    <section class="screen kb-wide" aria-labelledby="kb-editor-heading">
      <p class="kb-back">
        <a href={KB_PATH}>All articles</a>
      </p>
      <div class="kb-heading">
        <h1 id="kb-editor-heading">{article ? 'Edit article' : 'New article'}</h1>
        {article ? <a href={`${KB_PATH}/${article.id}/history`}>Version history</a> : null}
      </div>
      {article ? (
        <p class="kb-meta">
          <span class="kb-status" data-status={status}>
            {statusLabel(status)}
          </span>{' '}
          · version {formatNumber(article.version)} · saved{' '}
          <time dateTime={article.updated_at} title={formatDateTime(article.updated_at)}>
            {formatRelative(article.updated_at)}
          </time>
          {dirty ? <span class="kb-unsaved"> · unsaved changes</span> : null}
        </p>
      ) : null}
      <form
        class="form kb-editor"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <div class="kb-editor__fields">
          <label for="kb-title">Title</label>
          <input
            id="kb-title"
            name="title"
            required
            maxLength={TITLE_MAX}
            value={draft.value.title}
            onInput={edit('title')}
          />
          <label for="kb-tags">Tags</label>
          <input
            id="kb-tags"
            name="tags"
            value={draft.value.tags}
            onInput={edit('tags')}
            aria-describedby="kb-tags-hint"
          />
          <p id="kb-tags-hint" class="form__hint">
            Separated by commas, for example: billing, refunds.
          </p>
        </div>
        <div class="kb-editor__panes">
          <div class="kb-editor__write">
            <label for="kb-content">Content (Markdown)</label>
            <textarea
              id="kb-content"
              name="content"
              rows={18}
              maxLength={CONTENT_MAX}
              value={draft.value.content}
              onInput={edit('content')}
              spellcheck
            />
          </div>
          <section class="kb-editor__preview" aria-labelledby="kb-preview-heading">
            <h2 id="kb-preview-heading">Preview</h2>
            {draft.value.content.trim() === '' ? (
              <p class="kb-muted">Nothing to preview yet.</p>
            ) : (
              // renderMarkdown escapes raw HTML and checks links; the text itself never goes in as HTML.
              <div class="markdown" dangerouslySetInnerHTML={{ __html: preview.value }} />
            )}
          </section>
        </div>
        {failure ? <ErrorNotice error={failure} /> : null}
        {conflict.value ? (
          <p>
            <button type="button" class="button" onClick={() => void reloading.run()}>
              Load the latest version (drops your changes)
            </button>
          </p>
        ) : null}
        <p role="status" class="kb-notice">
          {notice.value}
        </p>
        <div class="form__actions">
          {article ? (
            <>
              <button type="submit" class="button button--primary" disabled={busy || !dirty}>
                {busy && savingAs.value === 'save' ? 'Saving…' : 'Save'}
              </button>
              {status === 'draft' ? (
                <button
                  type="button"
                  class="button"
                  disabled={busy}
                  onClick={whenValid(() => save('published'))}
                >
                  {dirty ? 'Save and publish' : 'Publish'}
                </button>
              ) : (
                <button
                  type="button"
                  class="button"
                  disabled={busy}
                  onClick={whenValid(() => save('draft'))}
                >
                  {dirty ? 'Save and unpublish' : 'Unpublish'}
                </button>
              )}
            </>
          ) : (
            <>
              <button type="submit" class="button button--primary" disabled={busy}>
                {busy && savingAs.value === 'save' ? 'Saving…' : 'Save draft'}
              </button>
              <button
                type="button"
                class="button"
                disabled={busy}
                onClick={whenValid(() => save('published'))}
              >
                Save and publish
              </button>
            </>
          )}
        </div>
      </form>
      <LeaveGuard dirty={dirty} />
    </section>
  );
}
