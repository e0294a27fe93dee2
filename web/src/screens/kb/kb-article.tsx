import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { KB_PATH, type KbArticle, statusLabel } from './kb.state';
import { KbEditor } from './kb-editor';
import { renderMarkdown } from './markdown';

/** One article: the editor for those who may edit (`train`), the article as it reads for the others. */
export function KbArticlePage({ id, canEdit }: { readonly id: string; readonly canEdit: boolean }) {
  const { session } = useApp();
  const loaded = useLoad(
    (signal) => unwrap(session.api.GET('/api/v1/kb/{id}', { params: { path: { id } }, signal })),
    [id],
  );
  const current = useSignal<KbArticle | null>(null);
  useEffect(() => {
    current.value = loaded.data.value;
  }, [loaded.data.value]);
  const article = current.value ?? loaded.data.value;

  if (loaded.error.value) {
    return (
      <section class="screen" aria-labelledby="kb-article-heading">
        <p class="kb-back">
          <a href={KB_PATH}>All articles</a>
        </p>
        <h1 id="kb-article-heading">Article</h1>
        <ErrorNotice error={loaded.error.value} />
      </section>
    );
  }
  if (!article) {
    return (
      <section class="screen">
        <p role="status">Loading the article…</p>
      </section>
    );
  }
  if (canEdit) {
    return (
      <KbEditor
        key={article.id}
        article={article}
        onSaved={(saved) => {
          current.value = saved;
        }}
      />
    );
  }
  return <KbReader article={article} />;
}

function KbReader({ article }: { readonly article: KbArticle }) {
  return (
    <article class="screen" aria-labelledby="kb-article-heading">
      <p class="kb-back">
        <a href={KB_PATH}>All articles</a>
      </p>
      <div class="kb-heading">
        <h1 id="kb-article-heading">{article.title}</h1>
        <a href={`${KB_PATH}/${article.id}/history`}>Version history</a>
      </div>
      <p class="kb-meta">
        <span class="kb-status" data-status={article.status}>
          {statusLabel(article.status)}
        </span>{' '}
        · version {formatNumber(article.version)} · saved{' '}
        <time dateTime={article.updated_at} title={formatDateTime(article.updated_at)}>
          {formatRelative(article.updated_at)}
        </time>
        {article.tags.length > 0 ? ` · tags: ${article.tags.join(', ')}` : ''}
      </p>
      {article.content.trim() === '' ? (
        <p class="kb-muted">This article has no text yet.</p>
      ) : (
        // renderMarkdown escapes raw HTML and checks links.
        <div
          class="markdown panel"
          dangerouslySetInnerHTML={{ __html: renderMarkdown(article.content) }}
        />
      )}
    </article>
  );
}
