/**
 * ArguAna, the second collection of `npm run eval` (issue 10 item 7, P189):
 * counter-argument retrieval over idebate.org debates (Wachsmuth, Syed and
 * Stein, ACL 2018), the domain of BEIR's ArguAna. A query is an argument's
 * point; the one relevant document is the counter written against it; the
 * corpus holds every point and counter of every debate.
 *
 * The collection is read at eval time from `../shared/eval/arguana` next to
 * the repository (or `EVAL_ARGUANA_DIR`), in BEIR's layout, and is never
 * committed here (P190). `npm run eval -- --build-arguana <source> <dir>`
 * writes that layout from the corpus as its authors publish it (the
 * `02-extracted-arguments` folder of the "ArguAna Counterargs Corpus").
 *
 * How the BEIR form is made (`buildArguana`), as BEIR's own ArguAna is:
 * - ids `<split>-<theme>-<initials of the debate's folder>-<pro|con><nn><a|b>`
 *   (`a` a point, `b` its counter), e.g. `test-environment-aeghhgwpe-pro02a`;
 * - a document's title is the debate's folder name with spaces for hyphens,
 *   its text the argument's file with line breaks as spaces;
 * - debates filed under several themes repeat the same arguments: each
 *   distinct text is one document, under the id of its first occurrence in
 *   the order test, validation, training (so every test counter keeps a test id);
 * - queries: the points of the test split (BEIR's 1,406) and, for tuning, of
 *   the validation split; a point whose counter is missing is not judged;
 * - qrels: a point → the document holding its counter's text, relevance 1.
 *
 * As in BEIR and Anserini (`-removeQuery`), the query's own document is
 * dropped from its ranking before scoring (`withoutQueryDocument`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod/mini';
import type { Collection } from './collection';

export const ARGUANA_DIRECTORY =
  process.env.EVAL_ARGUANA_DIR ?? resolve(__dirname, '..', '..', '..', 'shared', 'eval', 'arguana');

/** Anserini's BM25 flat on BEIR ArguAna (regressions-beir-v1.0.0-arguana-flat): nDCG@10 and R@100, test split. */
export const ARGUANA_PUBLISHED_BM25 = { ndcg10: 0.397, recall100: 0.9324 } as const;
/** The BEIR paper's BM25 (Elasticsearch, Thakur et al. 2021, table 2): nDCG@10. */
export const ARGUANA_BEIR_PAPER_BM25_NDCG10 = 0.315;

const SPLITS = ['test', 'validation', 'training'] as const;
type Split = (typeof SPLITS)[number];

interface Argument {
  readonly id: string;
  readonly split: Split;
  readonly title: string;
  readonly text: string;
  readonly kind: 'point' | 'counter';
}

const ARGUMENT_FILE = /^((?:pro|con)\d+)([ab])-(point|counter)\.txt$/;

const initials = (folder: string) =>
  folder
    .split('-')
    .filter((word) => word.length > 0)
    .map((word) => word[0])
    .join('');

const directories = (path: string) =>
  readdirSync(path)
    .filter((name) => statSync(join(path, name)).isDirectory())
    .sort();

function readArguments(source: string): Argument[] {
  const found: Argument[] = [];
  for (const split of SPLITS) {
    for (const theme of directories(join(source, split))) {
      for (const debate of directories(join(source, split, theme))) {
        for (const side of ['pro', 'con']) {
          const folder = join(source, split, theme, debate, side);
          if (!existsSync(folder)) continue;
          for (const file of readdirSync(folder).sort()) {
            const match = ARGUMENT_FILE.exec(file);
            if (match === null) continue;
            found.push({
              id: `${split}-${theme}-${initials(debate)}-${match[1]}${match[2]}`,
              split,
              title: debate.replace(/-/g, ' '),
              text: readFileSync(join(folder, file), 'utf8').replace(/\r?\n/g, ' ').trim(),
              kind: match[3] === 'point' ? 'point' : 'counter',
            });
          }
        }
      }
    }
  }
  return found;
}

export interface ArguanaBuild {
  readonly documents: readonly { _id: string; title: string; text: string }[];
  readonly queries: readonly { _id: string; text: string; split: 'test' | 'validation' }[];
  /** split → lines `query-id<TAB>corpus-id<TAB>1`. */
  readonly qrels: Readonly<Record<'test' | 'validation', readonly string[]>>;
}

/** The BEIR form of the counterargs corpus at `source` (its `02-extracted-arguments` folder). */
export function buildArguana(source: string): ArguanaBuild {
  const all = readArguments(source);
  if (all.length === 0) throw new Error(`no arguments under ${source}`);
  const documentOfText = new Map<string, string>();
  const documents: { _id: string; title: string; text: string }[] = [];
  for (const argument of all) {
    if (argument.text === '' || documentOfText.has(argument.text)) continue;
    documentOfText.set(argument.text, argument.id);
    documents.push({ _id: argument.id, title: argument.title, text: argument.text });
  }
  const byId = new Map(all.map((argument) => [argument.id, argument]));
  const queries: ArguanaBuild['queries'][number][] = [];
  const qrels = { test: [] as string[], validation: [] as string[] };
  for (const point of all) {
    if (point.kind !== 'point' || point.split === 'training') continue;
    queries.push({ _id: point.id, text: point.text, split: point.split });
    const counter = byId.get(point.id.replace(/a$/, 'b'));
    const relevant = counter === undefined ? undefined : documentOfText.get(counter.text);
    if (relevant !== undefined) qrels[point.split].push(`${point.id}\t${relevant}\t1`);
  }
  return { documents, queries, qrels };
}

const jsonl = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n');

/** Writes `corpus.jsonl.gz`, `queries.jsonl` and `qrels/{test,validation}.tsv` (BEIR's layout). */
export function writeArguana(build: ArguanaBuild, directory: string): void {
  mkdirSync(join(directory, 'qrels'), { recursive: true });
  writeFileSync(join(directory, 'corpus.jsonl.gz'), gzipSync(`${jsonl(build.documents)}\n`));
  writeFileSync(join(directory, 'queries.jsonl'), `${jsonl(build.queries)}\n`);
  for (const split of ['test', 'validation'] as const) {
    const header = 'query-id\tcorpus-id\tscore';
    writeFileSync(
      join(directory, 'qrels', `${split}.tsv`),
      `${[header, ...build.qrels[split]].join('\n')}\n`,
    );
  }
}

const corpusLine = z.object({ _id: z.string(), title: z.string(), text: z.string() });
const queryLine = z.object({
  _id: z.string(),
  text: z.string(),
  split: z.enum(['test', 'validation']),
});

export interface Arguana extends Collection {
  /** The validation split's judged query ids: everything tuned on ArguAna is tuned here. */
  readonly validation: readonly string[];
  /** The test split's judged query ids (BEIR's queries): reported, never tuned on. */
  readonly test: readonly string[];
}

export function loadArguana(directory = ARGUANA_DIRECTORY): Arguana {
  const files = ['corpus.jsonl.gz', 'queries.jsonl', 'qrels/test.tsv', 'qrels/validation.tsv'];
  const missing = files.filter((file) => !existsSync(join(directory, file)));
  if (missing.length > 0) {
    throw new Error(
      `The ArguAna collection is not at ${directory} (missing ${missing.join(', ')}). ` +
        'npm run eval reads it from ../shared/eval/arguana next to the repository, or EVAL_ARGUANA_DIR; ' +
        'docs/quality.md says how to make it (npm run eval -- --build-arguana).',
    );
  }
  const lines = (text: string) => text.split('\n').filter((line) => line.trim().length > 0);
  const documents = lines(gunzipSync(readFileSync(join(directory, 'corpus.jsonl.gz'))).toString())
    .map((line) => corpusLine.parse(JSON.parse(line)))
    .map(({ _id, title, text }) => ({ id: _id, title, text }));
  const qrels = new Map<string, Map<string, number>>();
  const judged = { test: [] as string[], validation: [] as string[] };
  for (const split of ['test', 'validation'] as const) {
    for (const line of lines(readFileSync(join(directory, 'qrels', `${split}.tsv`), 'utf8')).slice(
      1,
    )) {
      const [queryId, documentId, relevance] = line.split('\t');
      if (queryId === undefined || documentId === undefined || relevance === undefined) {
        throw new Error(`qrels/${split}.tsv: not "query-id<TAB>corpus-id<TAB>score": ${line}`);
      }
      const held = qrels.get(queryId) ?? new Map<string, number>();
      if (held.size === 0) judged[split].push(queryId);
      held.set(documentId, Number(relevance));
      qrels.set(queryId, held);
    }
  }
  const queries = lines(readFileSync(join(directory, 'queries.jsonl'), 'utf8'))
    .map((line) => queryLine.parse(JSON.parse(line)))
    .filter((query) => qrels.has(query._id))
    .map((query) => ({ id: query._id, text: query.text }));
  return {
    documents,
    queries,
    qrels,
    validation: judged.validation,
    test: judged.test,
    ownDocument: ownDocuments(documents, queries),
  };
}

/** query id → the document that holds the query's own text (ArguAna's queries are in its corpus). */
function ownDocuments(
  documents: Collection['documents'],
  queries: Collection['queries'],
): ReadonlyMap<string, string> {
  const byText = new Map(documents.map((document) => [document.text, document.id]));
  const own = new Map<string, string>();
  for (const query of queries) {
    const id = byText.get(query.text);
    if (id !== undefined) own.set(query.id, id);
  }
  return own;
}
