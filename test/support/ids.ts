import { ulid } from 'ulid';

/** D1: a well-formed id (`<prefix>_<ulid>` in lower case) that nothing has. */
export function unknownId(
  prefix:
    | 'agt'
    | 'ds'
    | 'org'
    | 'key'
    | 'wh'
    | 'dlv'
    | 'int'
    | 'sess'
    | 'chk'
    | 'doc'
    | 'usr'
    | 'grp',
): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
