/**
 * The documents of the answers eval: documentation that ships with Debian
 * packages on this machine, read at eval time and never copied into the
 * repository. READMEs and manuals in Markdown as they are (gunzipped when
 * Debian compressed them), plain-text READMEs as `.txt`, and man pages
 * rendered by `man` and re-marked as Markdown (test/eval/man-to-markdown.ts),
 * each uploaded under the file name given here.
 *
 * Documents whose `split` is `distractor` have no question: they are there so
 * that retrieval has to pick the right manual among several that share words
 * (scp beside ssh, bash's huge manual, other libraries' READMEs, Node.js's fs
 * and stream pages beside its readline and zlib pages).
 *
 * The `holdout2` documents are pages of Node.js's API reference as Debian ships
 * it (/usr/share/doc/nodejs/api): library API documentation, closer to the
 * READMEs of the issue's own held-out set than the man pages that make up most
 * of `tune` and `holdout`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { manToMarkdown } from './man-to-markdown';

/**
 * `tune` documents may be looked at while improving the answerer; `holdout`
 * ones may not; `holdout2` ones may not either, and their questions were
 * written from the documents alone, without running the answerer on them, so
 * that nothing in the set was chosen for how the system does.
 */
export type AnswerSplit = 'tune' | 'holdout' | 'holdout2';

export interface AnswerDocumentSpec {
  /** The file name it is uploaded as; questions name their document by it. */
  readonly name: string;
  readonly path: string;
  readonly kind: 'markdown' | 'text' | 'man';
  readonly split: AnswerSplit | 'distractor';
}

export interface LoadedDocument {
  readonly spec: AnswerDocumentSpec;
  /** The bytes uploaded, as text. */
  readonly text: string;
}

const DOC = '/usr/share/doc';
const MAN = '/usr/share/man';

const markdown = (name: string, path: string, split: AnswerDocumentSpec['split']) =>
  ({ name, path: `${DOC}/${path}`, kind: 'markdown', split }) as const;
const text = (name: string, path: string, split: AnswerDocumentSpec['split']) =>
  ({ name, path: `${DOC}/${path}`, kind: 'text', split }) as const;
/** A page of Node.js's API reference, uploaded as `nodejs-<module>.md`. */
const nodeApi = (module: string, split: AnswerDocumentSpec['split']) =>
  markdown(`nodejs-${module}.md`, `nodejs/api/${module}.md`, split);
const man = (page: string, split: AnswerDocumentSpec['split']) => {
  const section = page.slice(page.lastIndexOf('.') + 1);
  return {
    name: `${page}.md`,
    path: `${MAN}/man${section}/${page}.gz`,
    kind: 'man',
    split,
  } as const;
};

export const ANSWER_DOCUMENTS: readonly AnswerDocumentSpec[] = [
  // Tuning documents.
  markdown('pip-caching.md', 'python3-pip/html/topics/caching.md.gz', 'tune'),
  markdown('pip-configuration.md', 'python3-pip/html/topics/configuration.md.gz', 'tune'),
  markdown(
    'pip-requirements-file-format.md',
    'python3-pip/html/reference/requirements-file-format.md.gz',
    'tune',
  ),
  markdown(
    'pip-local-project-installs.md',
    'python3-pip/html/topics/local-project-installs.md',
    'tune',
  ),
  markdown('pyyaml-README.md', 'python3-yaml/README.md', 'tune'),
  markdown('xmltodict-README.md', 'python3-xmltodict/README.md.gz', 'tune'),
  markdown('git-README.md', 'git/README.md', 'tune'),
  text('make-README.txt', 'make/README.gz', 'tune'),
  man('curl.1', 'tune'),
  man('git-reset.1', 'tune'),
  man('git-stash.1', 'tune'),
  man('tar.1', 'tune'),
  man('ssh_config.5', 'tune'),
  // Held-out documents.
  markdown(
    'pip-repeatable-installs.md',
    'python3-pip/html/topics/repeatable-installs.md',
    'holdout',
  ),
  markdown('pip-authentication.md', 'python3-pip/html/topics/authentication.md', 'holdout'),
  markdown('pip-https-certificates.md', 'python3-pip/html/topics/https-certificates.md', 'holdout'),
  markdown('pip-vcs-support.md', 'python3-pip/html/topics/vcs-support.md.gz', 'holdout'),
  markdown('pip-installation.md', 'python3-pip/html/installation.md', 'holdout'),
  markdown('zstd-README.md', 'zstd/README.md.gz', 'holdout'),
  markdown('httplib2-README.md', 'python3-httplib2/README.md', 'holdout'),
  markdown('apt-README.md', 'apt/README.md.gz', 'holdout'),
  text('openssh-README.txt', 'openssh-client/README', 'holdout'),
  man('python3.1', 'holdout'),
  man('ssh.1', 'holdout'),
  man('git-commit.1', 'holdout'),
  man('git-clone.1', 'holdout'),
  man('make.1', 'holdout'),
  man('gzip.1', 'holdout'),
  // Second held-out set: Node.js API reference pages. Nobody tunes on these.
  nodeApi('readline', 'holdout2'),
  nodeApi('path', 'holdout2'),
  nodeApi('url', 'holdout2'),
  nodeApi('events', 'holdout2'),
  nodeApi('timers', 'holdout2'),
  nodeApi('util', 'holdout2'),
  nodeApi('os', 'holdout2'),
  nodeApi('dns', 'holdout2'),
  nodeApi('string_decoder', 'holdout2'),
  nodeApi('querystring', 'holdout2'),
  nodeApi('zlib', 'holdout2'),
  nodeApi('child_process', 'holdout2'),
  nodeApi('worker_threads', 'holdout2'),
  nodeApi('console', 'holdout2'),
  nodeApi('process', 'holdout2'),
  nodeApi('cluster', 'holdout2'),
  // Distractors: no question is about them.
  markdown('underscore-README.md', 'libjs-underscore/README.md', 'distractor'),
  markdown('systemd-CODING_STYLE.md', 'systemd/CODING_STYLE.md.gz', 'distractor'),
  markdown('systemd-ENVIRONMENT.md', 'systemd/ENVIRONMENT.md.gz', 'distractor'),
  markdown('procps-bugs.md', 'procps/bugs.md', 'distractor'),
  markdown('libcbor-README.md', 'libcbor0.8/README.md', 'distractor'),
  markdown('libxml2-README.md', 'libxml2/README.md', 'distractor'),
  markdown('man-db-README.md', 'man-db/README.md.gz', 'distractor'),
  markdown('postgresql-common-README.md', 'postgresql-common/README.md.gz', 'distractor'),
  markdown('pkgconf-README.md', 'pkgconf-bin/README.md.gz', 'distractor'),
  markdown('pip-getting-started.md', 'python3-pip/html/getting-started.md', 'distractor'),
  text('bash-README.txt', 'bash/README.gz', 'distractor'),
  man('scp.1', 'distractor'),
  man('git-log.1', 'distractor'),
  man('bash.1', 'distractor'),
  nodeApi('fs', 'distractor'),
  nodeApi('stream', 'distractor'),
  nodeApi('net', 'distractor'),
  nodeApi('https', 'distractor'),
  nodeApi('globals', 'distractor'),
];

function readMaybeCompressed(path: string): string {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** A man page as `man` formats it for an 80-column terminal, without hyphenation or justification. */
function renderManPage(path: string): string {
  const rendered = execFileSync('man', ['--nh', '--nj', '-l', path], {
    env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '', LC_ALL: 'C.UTF-8' },
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // `col -bx` as the man-db FAQ says: overstrikes (bold, underline) and tabs out.
  return execFileSync('col', ['-bx'], { input: rendered, maxBuffer: 64 * 1024 * 1024 }).toString(
    'utf8',
  );
}

function loadOne(spec: AnswerDocumentSpec): string {
  switch (spec.kind) {
    case 'markdown':
    case 'text':
      return readMaybeCompressed(spec.path);
    case 'man':
      return manToMarkdown(renderManPage(spec.path), spec.name.replace(/\.md$/, ''));
  }
}

export interface LoadedDocuments {
  readonly documents: readonly LoadedDocument[];
  /** Documents not on this machine (or that failed to render), with why. */
  readonly missing: readonly { readonly name: string; readonly reason: string }[];
}

/** Reads every document present on this machine; the missing ones are listed, not fatal. */
export function loadAnswerDocuments(
  specs: readonly AnswerDocumentSpec[] = ANSWER_DOCUMENTS,
): LoadedDocuments {
  const documents: LoadedDocument[] = [];
  const missing: { name: string; reason: string }[] = [];
  for (const spec of specs) {
    if (!existsSync(spec.path)) {
      missing.push({ name: spec.name, reason: `${spec.path} is not on this machine` });
      continue;
    }
    try {
      const loaded = loadOne(spec);
      if (loaded.trim() === '') throw new Error('it reads empty');
      documents.push({ spec, text: loaded });
    } catch (error) {
      missing.push({
        name: spec.name,
        reason: `${spec.path}: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  return { documents, missing };
}
