import { ulid } from 'ulid';

/** Every id is `<prefix>_<ulid>` in lower case, sortable by creation time. */
export const ID_PREFIXES = {
  organization: 'org',
  agent: 'agt',
  dataSource: 'ds',
  document: 'doc',
  chunk: 'chk',
  interaction: 'int',
  user: 'usr',
  group: 'grp',
  kbArticle: 'kb',
  webhook: 'wh',
  event: 'evt',
  delivery: 'dlv',
  apiKey: 'key',
  session: 'sess',
  request: 'req',
  modelKey: 'mk',
  // Not in D1's list: an evaluation run (issue 11 item 5).
  evaluation: 'eval',
  // Not in D1's list: sync jobs are addressable from the status and sync responses.
  syncJob: 'job',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const ULID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** Creates a new id of the given kind, e.g. `newId('agent')` → `agt_01jf3…`. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${ulid(now).toLowerCase()}`;
}

/** True when `value` is a well-formed id of `kind` (right prefix, 26-character lower-case ULID). */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ULID_BODY.test(value.slice(prefix.length));
}
