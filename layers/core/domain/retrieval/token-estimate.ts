/**
 * A tokenizer for the request path that costs nothing to load (issue 8).
 *
 * `cl100k_base` (tokens.ts) needs a 1 MB table that takes 0.5–0.8 s to load,
 * which no query should pay. Provider calls report their token usage
 * themselves; this estimate serves where the service must count alone: the
 * offline extractive model, whose tokens these are, the fallback when a
 * compatible endpoint reports no usage, and sizing embedding batches.
 *
 * It splits text as cl100k's pre-tokenizer does (BPE never merges across
 * these pieces, so each is at least one token) and charges a piece one token
 * per 4 bytes of ASCII or 2 bytes otherwise. On the project's own
 * documentation it is 1.25× cl100k on average and below it for about 2 % of
 * paragraphs (docs/benchmarks.md), so budgets set with it are conservative.
 * Linear in the text, whatever its shape.
 */
const PIECE =
  /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/giu;

const ASCII_BYTES_PER_TOKEN = 4;
const OTHER_BYTES_PER_TOKEN = 2;

function pieceCost(piece: string): number {
  const text = piece.trimStart();
  const bytes = Buffer.byteLength(text);
  const perToken = bytes === text.length ? ASCII_BYTES_PER_TOKEN : OTHER_BYTES_PER_TOKEN;
  return Math.max(1, Math.ceil(bytes / perToken));
}

/**
 * The estimated token count of `text`.
 *
 * @example
 * estimateTokens('hello world'); // 4 (cl100k counts 2)
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) tokens += pieceCost(match[0]);
  return tokens;
}

/** The longest start of one piece within `tokens`, by whole characters (a surrogate pair is never split). */
function startWithin(piece: string, tokens: number): string {
  let bytes = 0;
  let ascii = true;
  let end = 0;
  for (const character of piece) {
    const size = Buffer.byteLength(character);
    const nextAscii: boolean = ascii && size === 1;
    const cost = Math.ceil(
      (bytes + size) / (nextAscii ? ASCII_BYTES_PER_TOKEN : OTHER_BYTES_PER_TOKEN),
    );
    if (cost > tokens) break;
    bytes += size;
    ascii = nextAscii;
    end += character.length;
  }
  return piece.slice(0, end);
}

/**
 * The longest start of `text` whose estimate is at most `maxTokens`: the
 * last resort that keeps a response within its budget when not even one
 * word fits. A piece too long for what is left is cut by characters.
 */
export function firstEstimatedTokens(text: string, maxTokens: number): string {
  let left = Math.max(0, maxTokens);
  let kept = '';
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    const cost = pieceCost(piece);
    if (cost <= left) {
      kept += piece;
      left -= cost;
      continue;
    }
    return kept + startWithin(piece, left);
  }
  return kept;
}
