import { manToMarkdown } from './man-to-markdown';

/** A man page as `man | col -bx` prints it: running header and footer, sections, options, an example. */
const RENDERED = `CURL(1)                          curl Manual                         CURL(1)

NAME
       curl - transfer a URL

OPTIONS
       -L, --location
              (HTTP) If the server reports that the requested page has moved,
              curl redoes the request on the new place.

              You can limit the amount of redirects with --max-redirs <num>.

       -v      Verbose mode.  Multiple -v options increase the verbosity.

   Examples
       To follow redirects:

              curl -L https://example.com/*

curl 7.88.1                     February 20 2023                        CURL(1)
`;

describe('man page to Markdown', () => {
  const markdown = manToMarkdown(RENDERED, 'curl.1');

  it('titles the page and turns margin lines into sections and short indented lines into subsections', () => {
    expect(markdown.startsWith('# curl.1\n\n## NAME\n\ncurl - transfer a URL\n\n## OPTIONS')).toBe(
      true,
    );
    expect(markdown).toContain('\n### Examples\n');
  });

  it('drops the running header and footer', () => {
    expect(markdown).not.toContain('CURL(1)');
    expect(markdown).not.toContain('February 20 2023');
  });

  it('marks an option as code and its description as paragraphs, escaping what Markdown would read', () => {
    expect(markdown).toContain(
      '`-L, --location`\n\n(HTTP) If the server reports that the requested page has moved,\ncurl redoes the request on the new place.',
    );
    expect(markdown).toContain(
      'You can limit the amount of redirects with --max-redirs &lt;num&gt;.',
    );
    expect(markdown).toContain(
      '`-v`\n\nVerbose mode.  Multiple -v options increase the verbosity.',
    );
  });

  it('fences an example indented deeper than the text before it', () => {
    expect(markdown).toContain('To follow redirects:\n\n```\ncurl -L https://example.com/*\n```');
  });
});
