/**
 * A list's pages as links, so each page has an address (a reload or a
 * shared link keeps it): "Previous page", "Page 2 of 5", "Next page", and
 * nothing when there is one page. `hrefOf` writes the address of page `n`.
 */
export function Pager({
  label,
  page,
  pages,
  hrefOf,
  previous = 'Previous page',
  next = 'Next page',
}: {
  /** The navigation landmark's name ("Pages of agents"). */
  readonly label: string;
  readonly page: number;
  readonly pages: number;
  readonly hrefOf: (page: number) => string;
  readonly previous?: string;
  readonly next?: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 ? <a href={hrefOf(page - 1)}>{previous}</a> : null}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages ? <a href={hrefOf(page + 1)}>{next}</a> : null}
    </nav>
  );
}
