/**
 * Token counting for sizing chunks (issue 3: "sized in tokens").
 *
 * Counts with OpenAI's `cl100k_base` byte-pair encoding, the one its
 * `text-embedding-3-*` models read, through `gpt-tokenizer`: pure JavaScript
 * with the merge tables inside the package (nothing is downloaded at run
 * time), and about seven times faster than `js-tiktoken` on the same text.
 * The offline embedder has no tokenizer of its own, so sizing chunks for the
 * provider's model is the stricter of the two.
 */

type Cl100kEncoding = typeof import('gpt-tokenizer/encoding/cl100k_base');

let cl100k: Cl100kEncoding | undefined;

/**
 * The encoding, read at the first count: building its merge table is about
 * a quarter of a parsing worker's init, and a message that indexes nothing
 * (a sync that finds no change, a file refused) never needs it. Shipped
 * beside the worker's `index.js`; synchronous, so that counting stays a
 * plain function for the chunker.
 */
export function cl100kEncoding(): Cl100kEncoding {
  cl100k ??= require('gpt-tokenizer/encoding/cl100k_base') as Cl100kEncoding;
  return cl100k;
}

/** The encoding `countTokens` counts in. */
export const TOKEN_ENCODING = 'cl100k_base';

/**
 * Special tokens such as `<|endoftext|>` are counted as the plain text they
 * are: a document may contain them, and the default of the library (throw)
 * would make such a document impossible to index.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The longest run of non-space (or of space) characters the encoder is
 * given at once. Byte-pair merging is quadratic in the length of one
 * pre-token, and a run without spaces is one pre-token: 200 KB of `x` took
 * 42 s to count and froze the server (issue 14). Runs longer than this are
 * counted in slices of this length, which keeps counting linear; cl100k's
 * longest tokens are far shorter, so a slice boundary adds at most one
 * token and text with ordinary words is counted exactly as before (P68).
 */
export const MAX_ENCODED_RUN = 128;

/**
 * `text` in the pieces it is encoded in: as it is when it has no long run,
 * otherwise the text between long runs and each long run in slices of at
 * most `MAX_ENCODED_RUN` code units, never cutting a surrogate pair. One
 * pass over the characters: a regular expression for long runs overflows
 * V8's backtracking stack on a run of megabytes.
 */
function* encodedPieces(text: string): Generator<string> {
  let done = 0;
  let runStart = 0;
  for (let index = 1; index <= text.length; index += 1) {
    const runEnds =
      index === text.length ||
      isSpace(text.charCodeAt(index)) !== isSpace(text.charCodeAt(runStart));
    if (!runEnds) continue;
    if (index - runStart > MAX_ENCODED_RUN) {
      if (runStart > done) yield text.slice(done, runStart);
      for (let start = runStart; start < index; ) {
        let cut = Math.min(start + MAX_ENCODED_RUN, index);
        if (cut < index && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
        yield text.slice(start, cut);
        start = cut;
      }
      done = index;
    }
    runStart = index;
  }
  if (done < text.length) yield done === 0 ? text : text.slice(done);
}

/** What `\s` matches in a JavaScript regular expression. */
function isSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * How many `cl100k_base` tokens `text` is (runs longer than
 * `MAX_ENCODED_RUN` counted slice by slice).
 *
 * @example
 * countTokens('hello world'); // 2
 */
export function countTokens(text: string): number {
  let total = 0;
  const { countTokens: countCl100kTokens } = cl100kEncoding();
  for (const piece of encodedPieces(text)) total += countCl100kTokens(piece, PLAIN_TEXT);
  return total;
}
