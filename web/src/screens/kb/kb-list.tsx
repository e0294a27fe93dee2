import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { Pager } from '../../components/pager';
import { TableScroll } from '../../components/table-scroll';
import { formatDateTime, formatNumber, formatRelative } from '../../format/format';
import { useApp } from '../../state/app-context';
import { KB_PATH, type ListQuery, listHref, listQueryOf, PAGE_SIZE, statusLabel } from './kb.state';

/**
 * The organization's articles, newest first, 20 a page, filtered by status
 * and by one tag; filters and page live in the address, so a
 * filtered list can be linked, reloaded and gone back to.
 */
export function KbList({ canEdit }: { readonly canEdit: boolean }) {
  const { session } = useApp();
  const location = useLocation();
  const query = listQueryOf(location.query);
  const articles = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/kb', {
          params: {
            query: {
              limit: String(PAGE_SIZE),
              offset: String((query.page - 1) * PAGE_SIZE),
              ...(query.status ? { status: query.status } : {}),
              ...(query.tag ? { tag: query.tag } : {}),
            },
          },
          signal,
        }),
      ),
    [query.status, query.tag, query.page],
  );
  const list = articles.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  const filtered = query.status !== null || query.tag !== null;
  const go = (next: ListQuery) => location.route(listHref(next));

  const onFilter = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const status = String(form.get('status') ?? '');
    go(
      listQueryOf({
        status,
        tag: String(form.get('tag') ?? ''),
        page: '1',
      }),
    );
  };

  return (
    <section class="screen" aria-labelledby="kb-heading">
      <div class="kb-heading">
        <h1 id="kb-heading">Knowledge base</h1>
        {canEdit ? (
          <a class="button button--primary" href={`${KB_PATH}/new`}>
            New article
          </a>
        ) : null}
      </div>
      <p class="kb-intro">
        Articles written here answer questions once they are published: agents that list the
        knowledge base among their data sources cite them.
      </p>
      <form class="kb-filters" aria-label="Filter articles" onSubmit={onFilter}>
        <div class="kb-filters__field">
          <label for="kb-filter-status">Status</label>
          <select id="kb-filter-status" name="status" key={`status-${query.status}`}>
            <option value="" selected={query.status === null}>
              Any status
            </option>
            <option value="published" selected={query.status === 'published'}>
              Published
            </option>
            <option value="draft" selected={query.status === 'draft'}>
              Draft
            </option>
          </select>
        </div>
        <div class="kb-filters__field">
          <label for="kb-filter-tag">Tag</label>
          <input
            id="kb-filter-tag"
            name="tag"
            type="search"
            maxLength={100}
            defaultValue={query.tag ?? ''}
            key={`tag-${query.tag}`}
            aria-describedby="kb-filter-tag-hint"
          />
          <p id="kb-filter-tag-hint" class="form__hint">
            One tag, written exactly as on the article.
          </p>
        </div>
        <div class="kb-filters__actions">
          <button type="submit" class="button">
            Apply filters
          </button>
          {filtered ? <a href={KB_PATH}>Clear filters</a> : null}
        </div>
      </form>
      {articles.error.value ? <ErrorNotice error={articles.error.value} /> : null}
      {articles.loading.value && !list ? <p role="status">Loading articles…</p> : null}
      {list && list.total === 0 ? (
        <div role="status">
          <p>
            {filtered
              ? 'No article matches these filters.'
              : canEdit
                ? 'No articles yet. Write one and publish it when it is ready: agents that include the knowledge base answer from it at once.'
                : 'No articles yet.'}
          </p>
          {!filtered && canEdit ? (
            <a class="button button--primary" href={`${KB_PATH}/new`}>
              Write the first article
            </a>
          ) : null}
        </div>
      ) : null}
      {list && list.articles.length > 0 ? (
        <>
          <TableScroll label="Articles">
            <table class="table">
              <caption>
                {formatNumber(list.total)} {list.total === 1 ? 'article' : 'articles'}
                {query.status ? `, ${statusLabel(query.status).toLowerCase()}` : ''}
                {query.tag ? `, tagged “${query.tag}”` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Version</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {list.articles.map((article) => (
                  <tr key={article.id}>
                    <th scope="row">
                      <a href={`${KB_PATH}/${article.id}`}>{article.title}</a>
                    </th>
                    <td>
                      <span class="kb-status" data-status={article.status}>
                        {statusLabel(article.status)}
                      </span>
                    </td>
                    <td>
                      {article.tags.length === 0 ? (
                        <span class="kb-muted">None</span>
                      ) : (
                        <ul class="kb-tags">
                          {article.tags.map((tag) => (
                            <li key={tag}>
                              <a
                                href={listHref({ ...query, tag, page: 1 })}
                                aria-label={`Articles tagged ${tag}`}
                              >
                                {tag}
                              </a>
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>{formatNumber(article.version)}</td>
                    <td>
                      <time
                        dateTime={article.updated_at}
                        title={formatDateTime(article.updated_at)}
                      >
                        {formatRelative(article.updated_at)}
                      </time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <Pager
            label="Pages of articles"
            page={query.page}
            pages={pages}
            hrefOf={(n) => listHref({ ...query, page: n })}
          />
        </>
      ) : null}
    </section>
  );
}
