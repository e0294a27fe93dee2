/**
 * The library that reads each file type, loaded when the first file of that
 * type arrives rather than when a worker starts: a worker's init then costs
 * what every message needs, and the first PDF (or DOCX, Markdown, CSV file)
 * pays its parser's load once. In a deployed function each library is
 * shipped beside `index.js` (lib/constructs/function-bundle.ts), so init
 * does not even read it.
 *
 * @example
 * const { getDocumentProxy } = await loadPdfLibrary();
 */
import { cl100kEncoding } from '../../domain/retrieval/tokens';
import { htmlParser } from './html-to-document';

/**
 * `load` run at the first call and its result shared by every later one; a
 * failed load is forgotten, so the next file tries again.
 */
function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

/** PDF.js, packaged for servers by unpdf (about 1.6 MB). */
export const loadPdfLibrary = loadedOnce(() => import('unpdf'));

/** Mammoth, with the XML parser it reads Word's XML with. */
export const loadDocxLibrary = loadedOnce(() => import('mammoth'));

/** The node-csv project's parser. */
export const loadCsvLibrary = loadedOnce(() => import('csv-parse'));

/**
 * A Markdown renderer. Raw HTML inside Markdown is common (`<details>`,
 * tables); it is let through and stripped to text like any page.
 */
export const loadMarkdownRenderer = loadedOnce(async () => {
  const { default: Renderer } = await import('markdown-it');
  return new Renderer({ html: true, linkify: false, typographer: false });
});

/**
 * Every parser and the tokenizer, loaded now: for a long-lived process (the
 * local runtime's parsing process), where no cold start is saved and a
 * job's time limit must not count a library's load.
 */
export async function loadEveryParser(): Promise<void> {
  htmlParser();
  cl100kEncoding();
  await Promise.all([
    loadPdfLibrary(),
    loadDocxLibrary(),
    loadCsvLibrary(),
    loadMarkdownRenderer(),
  ]);
}
