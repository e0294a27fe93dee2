/**
 * The document is read by API users, who cannot look up the project's
 * decision records: the citations the code's own descriptions carry
 * ("", "", "the rate limits'") are taken out of every description
 * and summary as the document is written. A test refuses any that remain.
 */

const CITATION = String.raw`[DP]\d{1,3}`;
const CITATION_LIST = String.raw`${CITATION}(?:(?:,\s*|\s+and\s+|/)${CITATION})*`;

/** Any decision citation left in a text (what the test looks for). */
export const DECISION_CITATION = new RegExp(String.raw`\b${CITATION}\b`);

const REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  // "", "", "(…)" keeps what follows the colon.
  [new RegExp(String.raw`\s*\(${CITATION_LIST}\)`, 'g'), ''],
  [new RegExp(String.raw`\(${CITATION_LIST}:\s*`, 'g'), '('],
  // "(one answer for both)", "(…)", "(…)": the citation ending a parenthesis.
  [new RegExp(String.raw`[,;:]\s*${CITATION_LIST}\)`, 'g'), ')'],
  // "(then …)": at the start of one.
  [new RegExp(String.raw`\(${CITATION_LIST}[,;]\s*`, 'g'), '('],
  // "the rate limits' reasons", "P62: a …", "per D17/D18", "the nested shape".
  [new RegExp(String.raw`\b${CITATION_LIST}'s\s+`, 'g'), ''],
  [new RegExp(String.raw`^${CITATION_LIST}:\s*`, 'g'), ''],
  [new RegExp(String.raw`\s*\bper ${CITATION_LIST}\b`, 'g'), ''],
  [new RegExp(String.raw`\s*\b${CITATION_LIST}\b`, 'g'), ''],
];

/** A description without the project's decision citations. */
export function forReaders(text: string): string {
  let result = text;
  for (const [pattern, replacement] of REWRITES) result = result.replace(pattern, replacement);
  return result
    .replace(/\(\s*\)/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Every `description` and `summary` of a document, rewritten by `forReaders`. */
export function withReaderText<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withReaderText) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      (key === 'description' || key === 'summary') && typeof inner === 'string'
        ? forReaders(inner)
        : withReaderText(inner),
    ]),
  ) as T;
}
