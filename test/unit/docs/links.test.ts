import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  brokenReferences,
  HeadingSlugger,
  listBroken,
  parsePage,
  slugOf,
} from '../../support/doc-links';

/**
 * Issue 23 item 4: the docs resolve. Every relative link and `#anchor` in
 * README.md and docs/*.md, and every `docs/<name>.md` a source file names,
 * leads somewhere; the rules (what counts, what is skipped, `../shared`) are
 * in test/support/doc-links.ts.
 */

const REPOSITORY = join(__dirname, '..', '..', '..');

/**
 * The made-up trees below name pages that do not exist on purpose. The scan
 * of this repository reads this file too, so those names are written as
 * `${DOCS}/…`, which it does not take for a page.
 */
const DOCS = 'docs';

describe('the repository: README.md, docs/*.md and the source files', () => {
  it('has no reference that leads nowhere (each listed as file:line: target (reason))', () => {
    expect(listBroken(brokenReferences(REPOSITORY))).toBe('');
  });
});

describe('GitHub heading slugs', () => {
  it.each([
    ['Day one', 'day-one'],
    ['CLI start (`npx svc`)', 'cli-start-npx-svc'],
    ['Model provider (`modelApiKeySecret`)', 'model-provider-modelapikeysecret'],
    [
      'Network (`searchNetwork=vpc`, the `live` default)',
      'network-searchnetworkvpc-the-live-default',
    ],
    ["What's new?", 'whats-new'],
    ['Foo & Bar', 'foo--bar'],
    ['a — b', 'a--b'],
    ['1.0 → 2.0', '10--20'],
    ['snake_case stays', 'snake_case-stays'],
    ['P62: sign-in', 'p62-sign-in'],
    ['Привет non-latin 你好', 'привет-non-latin-你好'],
    ['😄 emoji', '-emoji'],
    [' two  spaces ', '-two--spaces-'],
  ])('%j → %j', (heading, slug) => {
    expect(slugOf(heading)).toBe(slug);
  });

  it('numbers a repeated slug -1, -2 …, past any suffix a heading already took', () => {
    const slugger = new HeadingSlugger();
    expect(
      ['Notes', 'Notes', 'Notes-1', 'Notes', 'a-1', 'a', 'a'].map((h) => slugger.slug(h)),
    ).toEqual(['notes', 'notes-1', 'notes-1-1', 'notes-2', 'a-1', 'a', 'a-2']);
  });
});

describe('the checker on a made-up repository', () => {
  let base: string;
  let root: string;

  const write = (path: string, text: string) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const broken = () => brokenReferences(root).map((b) => `${b.file}:${b.line}: ${b.target}`);

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'doc-links-'));
    root = join(base, 'repo');
    mkdirSync(root);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('reads headings as GitHub renders them: inline code, links and emphasis give their text', () => {
    write(
      `${DOCS}/page.md`,
      [
        '# Page',
        '## The `svc` CLI',
        '## See [the guide](guide.md) *now*',
        '## Setup',
        '## Setup',
        'Setext heading',
        '--------------',
        '```md',
        '## Not a heading',
        '```',
        '',
      ].join('\n'),
    );
    expect([...parsePage(root, join(root, DOCS, 'page.md')).anchors]).toEqual([
      'page',
      'the-svc-cli',
      'see-the-guide-now',
      'setup',
      'setup-1',
      'setext-heading',
    ]);
  });

  it('finds a missing file, a missing anchor and a missing page anchor, each at its line', () => {
    write('README.md', '# Read me\n\n## Start\n');
    write(`${DOCS}/guide.md`, '# Guide\n\n## Install it\n');
    write(
      `${DOCS}/index.md`,
      [
        '# Index',
        '',
        '[fine](guide.md) and [fine too](guide.md#install-it) and [here](#index)',
        '[root](../README.md#start), [from the root](/docs/guide.md), [a folder](../docs)',
        '[gone](gone.md) then',
        'a second line with [a bad anchor](guide.md#install) and [a bad own anchor](#nowhere)',
        '',
        '| a | b |',
        '| - | - |',
        '| x | [in a table](missing/table.md) |',
        '',
        '`[in code](nowhere.md)`, [web](https://example.com/x.md), [mail](mailto:a@example.com)',
        '',
        '![image](img/missing.png)',
        '',
        '[ref]: also-gone.md',
        'a [reference][ref] link',
      ].join('\n'),
    );
    expect(broken()).toEqual([
      `${DOCS}/index.md:5: gone.md`,
      `${DOCS}/index.md:6: guide.md#install`,
      `${DOCS}/index.md:6: #nowhere`,
      `${DOCS}/index.md:10: missing/table.md`,
      `${DOCS}/index.md:14: img/missing.png`,
      `${DOCS}/index.md:17: also-gone.md`,
    ]);
    expect(listBroken(brokenReferences(root))).toContain(
      `${DOCS}/index.md:6: guide.md#install (no heading makes #install)`,
    );
  });

  it('finds the line of a link after a code span that spans lines', () => {
    write('README.md', ['# R', '', 'a `code', 'span` then [gone](gone.md)', ''].join('\n'));
    expect(broken()).toEqual(['README.md:4: gone.md']);
  });

  it('checks a link that leaves the repository beside it, where the folder it enters exists', () => {
    write(
      'README.md',
      '# R\n\n[spec](../shared/spec/spec.md) [missing](../shared/spec/missing.md) [elsewhere](../other/x.md)\n',
    );
    // No shared folder beside the repository: nothing to check against.
    expect(broken()).toEqual([]);
    mkdirSync(join(base, 'shared', 'spec'), { recursive: true });
    writeFileSync(join(base, 'shared', 'spec', 'spec.md'), '# Spec\n');
    expect(broken()).toEqual(['README.md:3: ../shared/spec/missing.md']);
  });

  it('finds docs pages and anchors named in source files, and leaves URLs and longer paths alone', () => {
    write(`${DOCS}/real.md`, '# Real\n\n## A section\n');
    write(
      'layers/core/thing.ts',
      [
        `/** See ${DOCS}/real.md and ${DOCS}/real.md#a-section. */`,
        `// ${DOCS}/missing.md says why; ${DOCS}/real.md#no-section too`,
        `const url = 'https://example.com/${DOCS}/missing.md'; // site/${DOCS}/missing.md, ${DOCS}/missing.md.orig`,
        `const page = join(__dirname, '../../${DOCS}/gone.md');`,
      ].join('\n'),
    );
    write('.ci/run', `#!/bin/sh\n# writes ${DOCS}/report.md\n`);
    write('node_modules/pkg/index.js', `// ${DOCS}/missing.md`);
    expect(broken()).toEqual([
      `.ci/run:2: ${DOCS}/report.md`,
      `layers/core/thing.ts:2: ${DOCS}/missing.md`,
      `layers/core/thing.ts:2: ${DOCS}/real.md#no-section`,
      `layers/core/thing.ts:4: ${DOCS}/gone.md`,
    ]);
  });
});
