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
import {
  countTokens as countCl100kTokens,
  decode,
  encode,
} from 'gpt-tokenizer/encoding/cl100k_base';

/** The encoding `countTokens` counts in. */
export const TOKEN_ENCODING = 'cl100k_base';

/**
 * Special tokens such as `<|endoftext|>` are counted as the plain text they
 * are: a document may contain them, and the default of the library (throw)
 * would make such a document impossible to index.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * How many `cl100k_base` tokens `text` is.
 *
 * @example
 * countTokens('hello world'); // 2
 */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countCl100kTokens(text, PLAIN_TEXT);
}

/**
 * The text of the first `maxTokens` tokens of `text`: the last resort that
 * keeps a response within a token budget when not even one word fits.
 */
export function firstTokens(text: string, maxTokens: number): string {
  return decode(encode(text, PLAIN_TEXT).slice(0, Math.max(0, maxTokens)));
}
