/**
 * How users ask against how documentation words it: "turn off" where the
 * manual says "disable", "folder" where it says "directory". Both the
 * search (a few extra, lighter query words) and the offline answerer (which
 * sentence says what was asked) read a question through this table.
 */
import { analyze, words } from './text-analysis';

/**
 * The pairs, the user's words first. A question's word
 * brings in the documentation's words at a lower weight ("turn off" finds
 * "disable", "folder" finds "directory"). Small on purpose: these are the
 * pairs seen again and again in questions about software; a wider thesaurus
 * would match sentences that are not about the question.
 */
const DOCUMENTATION_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['turn off', 'disable'],
  ['switch off', 'disable'],
  ['stop', 'disable'],
  ['turn on', 'enable'],
  ['switch on', 'enable'],
  ['folder', 'directory'],
  ['dir', 'directory'],
  ['config', 'configuration'],
  ['settings', 'configuration'],
  ['clear', 'purge'],
  ['clear', 'remove'],
  ['wipe', 'remove'],
  ['erase', 'delete'],
  ['delete', 'remove'],
  ['remove', 'delete'],
  ['setup', 'install'],
  ['launch', 'start'],
  ['run', 'execute'],
  ['speed', 'performance'],
  ['fast', 'performance'],
  ['slow', 'performance'],
  ['error', 'fail'],
  ['crash', 'fail'],
  ['wait', 'timeout'],
  ['retry', 'retries'],
  ['login', 'authentication'],
  ['log in', 'authentication'],
  ['password', 'credentials'],
  ['env var', 'environment variable'],
  ['envvar', 'environment variable'],
  ['args', 'arguments'],
  ['params', 'parameters'],
  ['make', 'create'],
  ['new', 'create'],
  ['update', 'upgrade'],
  ['upgrade', 'update'],
  ['version', 'release'],
  ['download', 'fetch'],
  ['copy', 'clone'],
  ['undo', 'revert'],
  ['undo', 'reset'],
  ['turn', 'convert'],
  ['transform', 'convert'],
  ['huge', 'large'],
  ['huge', 'big'],
  ['big', 'large'],
  ['large', 'big'],
  ['keep', 'store'],
  ['keep', 'preserve'],
  ['save', 'store'],
  ['save', 'write'],
  ['read', 'load'],
  ['read', 'parse'],
  ['load', 'read'],
  ['print', 'output'],
  ['show', 'display'],
  ['see', 'show'],
  ['see', 'display'],
  ['list', 'show'],
  ['time limit', 'timeout'],
  ['time limit', 'maximum time'],
  ['limit', 'maximum'],
  ['throw away', 'discard'],
  ['drop', 'strip'],
  ['drop', 'discard'],
  ['get back', 'restore'],
  ['check', 'verify'],
  ['check', 'validate'],
  ['combine', 'merge'],
  ['kill', 'terminate'],
  ['quit', 'exit'],
  ['cancel', 'abort'],
  ['send', 'request'],
  ['auth', 'authentication'],
  ['repo', 'repository'],
  ['deps', 'dependencies'],
  ['db', 'database'],
  ['app', 'application'],
  ['docs', 'documentation'],
  ['regex', 'regular expression'],
  ['colour', 'color'],
  ['quiet', 'silent'],
  ['debug', 'verbose'],
];

/** The pairs whose user's words the question says, a word of a matched phrase meaning the phrase. */
function matchedPairs(question: string): Array<readonly [string, string]> {
  const asked = ` ${words(question).join(' ')} `;
  // "turn off" is "disable", not "convert".
  const inPhrases = new Set<string>();
  for (const [users] of DOCUMENTATION_WORDS) {
    if (users.includes(' ') && asked.includes(` ${users} `)) {
      for (const word of users.split(' ')) inPhrases.add(word);
    }
  }
  return DOCUMENTATION_WORDS.filter(
    ([users]) => asked.includes(` ${users} `) && (users.includes(' ') || !inPhrases.has(users)),
  );
}

/** The documentation's terms for a question's words, each with the question term it stands for. */
export function documentationTerms(question: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [users, documentation] of matchedPairs(question)) {
    const [userTerm] = analyze(users).slice(-1);
    for (const term of analyze(documentation)) {
      if (userTerm !== undefined && !found.has(term)) found.set(term, userTerm);
    }
  }
  return found;
}

/**
 * The documentation's words for a question's words, as written and each
 * once, leaving out those the question already says: what a search adds.
 */
export function documentationWords(question: string): string[] {
  const own = new Set(analyze(question));
  const found = new Set<string>();
  for (const [, documentation] of matchedPairs(question)) {
    for (const word of documentation.split(' ')) {
      const [term] = analyze(word);
      if (term !== undefined && !own.has(term)) found.add(word);
    }
  }
  return [...found];
}
