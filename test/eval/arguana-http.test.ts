/**
 * A smoke test of the second collection's harness (issue 10 item 7, P189–P192),
 * kept small so `npm test` stays fast: a counterargs corpus of a few made-up
 * debates in the authors' layout is turned into BEIR's form, read back, and
 * searched through the HTTP API on the real local runtime. The full
 * collection is measured only by `npm run eval`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildArguana, loadArguana, writeArguana } from './arguana';
import { meanMetrics } from './metrics';
import { fitQuery, measureRetrievalOverHttp, runFromChunks } from './retrieval-http';

const DEBATES: Record<string, Record<string, string>> = {
  // split/theme/debate folder → file → text
  'test/economy/tax-wealth-inheritance': {
    'pro/pro01a-point.txt':
      'Inheritance tax is fair\n\nTaxing large inheritances reduces inequality between heirs and workers.',
    'pro/pro01b-counter.txt':
      'Heirs already paid income tax on the wealth; a second tax on inheritances punishes thrift.',
    'con/con01a-point.txt':
      'Farms are broken up\n\nFamily farms must be sold to pay the inheritance tax on land.',
    'con/con01b-counter.txt':
      'Farmland relief exempts working family farms, so no farm is sold to pay the tax.',
  },
  'test/health/sugar-tax-health': {
    'pro/pro01a-point.txt':
      'A sugar tax cuts obesity\n\nTaxing sugary drinks lowers how many children drink them.',
    'pro/pro01b-counter.txt':
      'Children switch to sweets and juice; obesity figures did not fall where drinks were taxed.',
  },
  // The same debate filed under a second theme: its texts are one document each.
  'test/politics/tax-wealth-inheritance': {
    'pro/pro01a-point.txt':
      'Inheritance tax is fair\n\nTaxing large inheritances reduces inequality between heirs and workers.',
    'pro/pro01b-counter.txt':
      'Heirs already paid income tax on the wealth; a second tax on inheritances punishes thrift.',
  },
  'validation/sport/football-video-referee': {
    'pro/pro01a-point.txt':
      'Video referees get decisions right\n\nReplays let referees correct offside and penalty mistakes.',
    'pro/pro01b-counter.txt':
      'Replays stop the game for minutes and offside still depends on the frame chosen.',
  },
  'training/science/space-mars-mission': {
    'con/con01a-point.txt':
      'Mars is too far\n\nA crewed mission to Mars costs more than it returns.',
  },
};

function writeSource(root: string): string {
  const source = join(root, '02-extracted-arguments');
  for (const [folder, files] of Object.entries(DEBATES)) {
    for (const [file, text] of Object.entries(files)) {
      const path = join(source, folder, file);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
    writeFileSync(join(source, folder, 'thesis.txt'), 'not an argument');
  }
  return source;
}

describe('ArguAna harness (P189–P192)', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'arguana-'));
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('builds BEIR ids, one document per distinct text, and qrels from point to counter', () => {
    const build = buildArguana(writeSource(root));

    expect(build.documents.map((document) => document._id)).toEqual([
      'test-economy-twi-pro01a',
      'test-economy-twi-pro01b',
      'test-economy-twi-con01a',
      'test-economy-twi-con01b',
      'test-health-sth-pro01a',
      'test-health-sth-pro01b',
      'validation-sport-fvr-pro01a',
      'validation-sport-fvr-pro01b',
      'training-science-smm-con01a',
    ]);
    expect(build.documents[0]).toEqual({
      _id: 'test-economy-twi-pro01a',
      title: 'tax wealth inheritance',
      text: 'Inheritance tax is fair  Taxing large inheritances reduces inequality between heirs and workers.',
    });
    // The politics copy of the debate is a query of its own, judged against the one document of its counter.
    expect(build.qrels.test).toContain('test-politics-twi-pro01a\ttest-economy-twi-pro01b\t1');
    expect(build.qrels.validation).toEqual([
      'validation-sport-fvr-pro01a\tvalidation-sport-fvr-pro01b\t1',
    ]);
    expect(build.queries.filter((query) => query.split === 'test')).toHaveLength(4);
  });

  it('reads back what it wrote, with each query’s own document named', () => {
    const directory = join(root, 'beir');
    writeArguana(buildArguana(join(root, '02-extracted-arguments')), directory);
    const data = loadArguana(directory);

    expect(data.documents).toHaveLength(9);
    expect(data.test).toHaveLength(4);
    expect(data.validation).toEqual(['validation-sport-fvr-pro01a']);
    expect(data.ownDocument?.get('test-politics-twi-pro01a')).toBe('test-economy-twi-pro01a');
  });

  it('cuts a query the endpoint would refuse at a space, and reads a run in the response order', () => {
    expect(fitQuery('one two three', 9)).toBe('one two');
    expect(fitQuery('  short  ', 9)).toBe('short');
    const run = runFromChunks(
      [
        { document_url: 'u/b' },
        { document_url: 'u/a' },
        { document_url: 'u/b' },
        { document_url: null },
      ],
      (url) => url.slice(2),
    );
    expect([...run]).toEqual([
      ['b', 100],
      ['a', 99],
    ]);
  });

  it('searches the crawled collection over HTTP, without the query’s own document', async () => {
    const data = loadArguana(join(root, 'beir'));
    const result = await measureRetrievalOverHttp(data, data.test, () => {}, [
      'default',
      'similarity',
    ]);

    expect(result.rankedBy.get('default')).toBe('hybrid');
    expect(result.rankedBy.get('similarity')).toBe('similarity');
    const runs = result.runs.get('default');
    for (const id of data.test) {
      expect(runs?.get(id)?.has(data.ownDocument?.get(id) ?? '')).toBe(false);
    }
    const metrics = meanMetrics(data.test, runs ?? new Map(), data.qrels);
    expect(metrics.queries).toBe(4);
    expect(metrics.recall100).toBe(1);
  }, 120_000);
});
