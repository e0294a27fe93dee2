import { ApiError } from '../../src/api/api-error';
import {
  csvField,
  csvRow,
  exportFileName,
  fetchAllPages,
  interactionsCsv,
} from '../../src/screens/interactions/export-csv';
import type {
  Interaction,
  InteractionList,
} from '../../src/screens/interactions/interactions.state';
import {
  addressOf,
  apiFilters,
  filterProblem,
  filtersFromQuery,
} from '../../src/screens/interactions/interactions.state';

function interaction(id: string, overrides: Partial<Interaction> = {}): Interaction {
  return {
    id,
    agent_id: 'agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ',
    session_id: 'sess_1',
    query: 'How long is the return window?',
    response: 'Thirty days. [1]',
    sources: [
      {
        chunk_id: 'chk_1',
        document_id: 'doc_1',
        data_source_id: 'ds_1',
        document_title: 'Returns',
        document_url: 'https://help.example/returns',
        rank: 1,
        score: 0.8,
        similarity_score: 0.7,
        chunk_text: 'Thirty days',
        quoted_ranges: [{ start: 0, end: 11 }],
      },
    ],
    cited_sources: 1,
    groundedness: 1,
    feedback: null,
    feedback_comment: null,
    latency_ms: 120,
    tokens_input: 10,
    tokens_output: 5,
    cost_usd: 0.0001,
    rag_strategy: 'hybrid',
    model: 'offline-extractive',
    key_id: 'key_1',
    asked_by: { type: 'api_key', id: 'key_1', name: 'Nightly report', email: null },
    created_at: '2026-11-27T10:00:00.000Z',
    ...overrides,
  };
}

describe('CSV fields (RFC 4180, and safe in a spreadsheet)', () => {
  it.each([
    ['plain', 'plain'],
    ['a, b', '"a, b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r\nlf', '"cr\r\nlf"'],
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['+1 555', "'+1 555"],
    ['-2', "'-2"],
    ['@cmd', "'@cmd"],
    ['\tindent', "'\tindent"],
    ['=HYPERLINK("x", "y")', `"'=HYPERLINK(""x"", ""y"")"`],
    ['a = b', 'a = b'],
    ['', ''],
  ])('%j is written %j', (value, written) => {
    expect(csvField(value)).toBe(written);
  });

  it('writes numbers as numbers (a negative one is not a formula), and nothing for null', () => {
    expect(csvRow([-2, 0.0042, null, undefined, Number.NaN])).toBe('-2,0.0042,,,');
  });
});

describe('the CSV file', () => {
  it('has a header, one CRLF-ended row per interaction, a byte order mark, and the agent named', () => {
    const csv = interactionsCsv(
      [
        interaction('int_2', { feedback: 'negative', feedback_comment: 'Wrong, "very"' }),
        interaction('int_1', { sources: [], billed_to: 'model_key' }),
      ],
      new Map([['agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ', 'Support']]),
    );
    expect(csv.startsWith('\uFEFFid,created_at,agent_id,agent_name,question,answer,')).toBe(true);
    const rows = csv.slice(1).split('\r\n');
    expect(rows).toHaveLength(4); // header, two rows, the final line end
    expect(rows[3]).toBe('');
    expect(rows[1]).toContain(',Support,How long is the return window?,Thirty days. [1],negative,');
    expect(rows[1]).toContain('"Wrong, ""very"""');
    expect(rows[1]).toContain(',1. Returns <https://help.example/returns>,');
    expect(rows[1]).toContain(',service,');
    expect(rows[2]).toContain(',model_key,');
    expect(rows[1]).toContain(',key_1,Nightly report,,sess_1');
  });

  it('is named by its dates', () => {
    const today = new Date('2026-11-27T12:00:00Z');
    expect(exportFileName('', '', today)).toBe('interactions-2026-11-27.csv');
    expect(exportFileName('2026-11-01', '2026-11-20', today)).toBe(
      'interactions-2026-11-01-to-2026-11-20.csv',
    );
    expect(exportFileName('2026-11-01', '', today)).toBe(
      'interactions-2026-11-01-to-2026-11-27.csv',
    );
  });
});

describe('reading every page for an export', () => {
  /** A list of `total` interactions, newest first, served `limit` at a time. */
  function pagesOf(total: number, asked: Array<[number, number]>) {
    const all = Array.from({ length: total }, (_, index) => interaction(`int_${total - index}`));
    return async (limit: number, offset: number): Promise<InteractionList> => {
      asked.push([limit, offset]);
      return { interactions: all.slice(offset, offset + limit), total, limit, offset };
    };
  }
  const signal = new AbortController().signal;

  it('reads page after page until the total, 200 at a time', async () => {
    const asked: Array<[number, number]> = [];
    const result = await fetchAllPages(pagesOf(450, asked), { signal });
    expect(asked).toEqual([
      [200, 0],
      [200, 200],
      [200, 400],
    ]);
    expect(result).toMatchObject({ total: 450, truncated: false });
    expect(result.interactions).toHaveLength(450);
  });

  it('stops at the bound and says the file is cut', async () => {
    const asked: Array<[number, number]> = [];
    const result = await fetchAllPages(pagesOf(450, asked), { signal, maxRows: 250 });
    expect(asked).toEqual([
      [200, 0],
      [50, 200],
    ]);
    expect(result).toMatchObject({ total: 450, truncated: true });
    expect(result.interactions).toHaveLength(250);
  });

  it('keeps a row once when a new interaction pushes the list down between pages', async () => {
    let calls = 0;
    const result = await fetchAllPages(
      async (limit, offset) => {
        calls += 1;
        // Three interactions; a fourth arrives after the first page, so page two repeats int_2.
        const list =
          calls === 1 ? ['int_3', 'int_2'] : ['int_4', 'int_3', 'int_2', 'int_1'].slice(offset);
        const total = calls === 1 ? 3 : 4;
        return {
          interactions: list.slice(0, calls === 1 ? 2 : limit).map((id) => interaction(id)),
          total,
          limit,
          offset,
        };
      },
      { signal, maxRows: 10 },
    );
    expect(result.interactions.map((one) => one.id)).toEqual(['int_3', 'int_2', 'int_1']);
  });

  it('waits out a short 429 and goes on; a long one fails the export', async () => {
    const tooMany = (seconds: number) =>
      ApiError.from(
        { error: { code: 'rate_limit_exceeded', message: 'x', details: { retry_after: seconds } } },
        { status: 429, headers: new Headers() },
      );
    const waits: number[] = [];
    let refused = false;
    const asked: Array<[number, number]> = [];
    const serve = pagesOf(3, asked);
    const progress: Array<number | null> = [];
    const result = await fetchAllPages(
      async (limit, offset) => {
        if (!refused) {
          refused = true;
          throw tooMany(2);
        }
        return serve(limit, offset);
      },
      {
        signal,
        sleep: async (seconds) => {
          waits.push(seconds);
        },
        onProgress: (next) => progress.push(next.waiting),
      },
    );
    expect(waits).toEqual([2]);
    expect(progress).toEqual([2, null]);
    expect(result.interactions).toHaveLength(3);

    await expect(
      fetchAllPages(
        async () => {
          throw tooMany(600);
        },
        { signal, sleep: async () => undefined },
      ),
    ).rejects.toMatchObject({ status: 429, retryAfter: 600 });
  });
});

describe('the filters in the address', () => {
  it('reads what is well formed and drops the rest', () => {
    expect(
      filtersFromQuery({
        agent_id: 'agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ',
        start_date: '2026-11-01',
        end_date: '2026-02-30',
        feedback: 'null',
        page: '3',
      }),
    ).toEqual({
      agentId: 'agt_01JF3ZZZZZZZZZZZZZZZZZZZZZ',
      startDate: '2026-11-01',
      endDate: '',
      feedback: 'null',
      text: '',
      answered: '',
      page: 3,
    });
    expect(filtersFromQuery({ agent_id: '../x', feedback: 'maybe', page: '-1' })).toEqual({
      agentId: '',
      startDate: '',
      endDate: '',
      feedback: '',
      text: '',
      answered: '',
      page: 1,
    });
  });

  it('keeps a search, trimmed, and the answered filter', () => {
    const filters = filtersFromQuery({ q: '  return window ', answered: 'false' });

    expect(filters).toMatchObject({ text: 'return window', answered: 'false' });
    expect(addressOf(filters)).toBe('/interactions?q=return+window&answered=false');
    expect(apiFilters(filters)).toEqual({ q: 'return window', answered: 'false' });
    expect(filtersFromQuery({ answered: 'maybe' }).answered).toBe('');
  });

  it('writes only what is set, and the API query without the page', () => {
    const filters = filtersFromQuery({ feedback: 'negative', start_date: '2026-11-01', page: '2' });
    expect(addressOf(filters)).toBe('/interactions?start_date=2026-11-01&feedback=negative&page=2');
    expect(addressOf({ ...filters, page: 1 })).toBe(
      '/interactions?start_date=2026-11-01&feedback=negative',
    );
    expect(apiFilters(filters)).toEqual({ start_date: '2026-11-01', feedback: 'negative' });
    expect(addressOf(filtersFromQuery({}))).toBe('/interactions');
  });

  it('says when the dates are out of order', () => {
    expect(
      filterProblem(filtersFromQuery({ start_date: '2026-11-02', end_date: '2026-11-01' })),
    ).toBe('The start date is after the end date: pick dates in order.');
    expect(
      filterProblem(filtersFromQuery({ start_date: '2026-11-01', end_date: '2026-11-01' })),
    ).toBe(null);
  });
});
