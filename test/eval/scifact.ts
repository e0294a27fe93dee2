/**
 * Loads BEIR SciFact (test split) from ../shared/eval/beir-scifact. The
 * collection is CC BY-NC (its SOURCE.md): it is read from there at eval time
 * and never copied into this repository, not even in part.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod/mini';

/** Relative to the repository root, as the eval README places it. */
export const SCIFACT_DIRECTORY = resolve(
  __dirname,
  '..',
  '..',
  '..',
  'shared',
  'eval',
  'beir-scifact',
);

export interface ScifactDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export interface ScifactQuery {
  readonly id: string;
  readonly text: string;
}

export interface Scifact {
  readonly documents: readonly ScifactDocument[];
  /** In the order of queries.test.tsv: the first 150 are the training split. */
  readonly queries: readonly ScifactQuery[];
  /** query id → relevant document id → relevance (all 1 in SciFact). */
  readonly qrels: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

const corpusLine = z.object({ _id: z.string(), title: z.string(), text: z.string() });

const FILES = ['corpus.jsonl', 'queries.test.tsv', 'qrels.test.trec'] as const;

export function loadScifact(directory = SCIFACT_DIRECTORY): Scifact {
  const missing = FILES.filter((file) => !existsSync(join(directory, file)));
  if (missing.length > 0) {
    throw new Error(
      `The SciFact collection is not at ${directory} (missing ${missing.join(', ')}). ` +
        'npm run eval reads it from ../shared/eval/beir-scifact next to the repository; ' +
        'see ../shared/eval/README.md. It is never copied into the repository (CC BY-NC).',
    );
  }
  const documents = lines(join(directory, 'corpus.jsonl')).map((line) => {
    const { _id, title, text } = corpusLine.parse(JSON.parse(line));
    return { id: _id, title, text };
  });
  const queries = lines(join(directory, 'queries.test.tsv')).map((line) => {
    const tab = line.indexOf('\t');
    if (tab < 1) throw new Error(`queries.test.tsv: not "qid<TAB>text": ${line.slice(0, 40)}`);
    return { id: line.slice(0, tab), text: line.slice(tab + 1) };
  });
  const qrels = new Map<string, Map<string, number>>();
  for (const line of lines(join(directory, 'qrels.test.trec'))) {
    const [queryId, , documentId, relevance] = line.split(/\s+/);
    if (queryId === undefined || documentId === undefined || relevance === undefined) {
      throw new Error(`qrels.test.trec: not "qid 0 docid rel": ${line}`);
    }
    const judged = qrels.get(queryId) ?? new Map<string, number>();
    judged.set(documentId, Number(relevance));
    qrels.set(queryId, judged);
  }
  return { documents, queries, qrels };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0);
}
