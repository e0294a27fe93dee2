import { useLocation } from 'preact-iso/router';
import { useApp } from '../../state/app-context';
import { roleAtLeast } from '../../state/session';
import { pageAt } from './kb.state';
import { KbArticlePage } from './kb-article';
import { KbEditor } from './kb-editor';
import { KbHistory } from './kb-history';
import { KbList } from './kb-list';
import './kb.css';

/**
 * The knowledge base (issue 21 item 8): the articles with their status
 * and tag filters, the editor with its preview, and each article's versions
 * compared and restored. Everyone from `readonly` reads; writing takes
 * `train`, and below it no editing control is shown at all.
 */
export default function KnowledgeBase() {
  const { session } = useApp();
  const location = useLocation();
  const canEdit = roleAtLeast(session.role.value ?? 'readonly', 'train');
  const page = pageAt(location.path);

  switch (page.kind) {
    case 'list':
      return <KbList canEdit={canEdit} />;
    case 'new':
      return canEdit ? <KbEditor article={null} onSaved={() => undefined} /> : <Missing />;
    case 'article':
      return <KbArticlePage key={page.id} id={page.id} canEdit={canEdit} />;
    case 'history':
      return <KbHistory key={page.id} id={page.id} canEdit={canEdit} />;
    default:
      return <Missing />;
  }
}

function Missing() {
  return (
    <section class="screen">
      <h1>Page not found</h1>
      <p>
        There is no page at this address, or your role does not open it.{' '}
        <a href="/kb">Go to the knowledge base</a>.
      </p>
    </section>
  );
}
