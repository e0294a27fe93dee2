import { ApiError } from '../../src/api/api-error';
import {
  agentInput,
  agentPermissions,
  applyEvent,
  askFailure,
  cutTurn,
  formatCost,
  formatScore,
  listPath,
  pageOf,
  startTurn,
  type Turn,
} from '../../src/screens/agents/agents.state';
import type { Me } from '../../src/state/roles';

const source = (n: number) => ({
  chunk_id: `chk_${n}`,
  document_title: `Doc ${n}`,
  document_url: null,
  rank: n,
  score: 1 / n,
  similarity_score: 0.9 / n,
  chunk_text: `Passage ${n}`,
});

const event = (name: string, data: unknown) => ({ event: name, data: JSON.stringify(data) });

function play(events: ReadonlyArray<{ event: string; data: string }>): Turn {
  return events.reduce(applyEvent, startTurn(1, 'Why?'));
}

describe("the playground's answer, built from D19's stream", () => {
  it('adds the deltas as they come, numbered against the sources event', () => {
    const turn = play([
      event('sources', { sources: [source(1), source(2)] }),
      event('delta', { text: 'Two years [2]' }),
      event('delta', { text: ' and more [1].' }),
    ]);

    expect(turn).toMatchObject({ status: 'streaming', text: 'Two years [2] and more [1].' });
    expect(turn.sources.map((entry) => entry.chunk_id)).toEqual(['chk_1', 'chk_2']);
  });

  it("takes done's renumbered answer and cited sources, keeping each passage from the sources event (P174)", () => {
    const { chunk_text: _, ...second } = source(2);
    const metadata = { interaction_id: 'int_1', session_id: 'sess_1', latency_ms: 5 };
    const turn = play([
      event('sources', { sources: [source(1), source(2)] }),
      event('delta', { text: 'Two years [2].' }),
      event('done', { response: 'Two years [1].', sources: [second], metadata }),
    ]);

    expect(turn).toMatchObject({ status: 'done', text: 'Two years [1].', metadata });
    expect(turn.sources).toEqual([{ ...second, chunk_text: 'Passage 2' }]);
  });

  it("takes done's quoted ranges and groundedness: the sources event, sent before the answer, quotes nothing", () => {
    const { chunk_text: _, ...first } = source(1);
    const quoted = { ...first, quoted_ranges: [{ start: 0, end: 7 }] };
    const metadata = { interaction_id: 'int_1', groundedness: 0.5 };
    const streaming = play([event('sources', { sources: [{ ...source(1), quoted_ranges: [] }] })]);
    const turn = applyEvent(
      streaming,
      event('done', { response: 'Passage [1].', sources: [quoted], metadata }),
    );

    expect(streaming.sources[0]?.quoted_ranges).toEqual([]);
    expect(turn.sources).toEqual([{ ...quoted, chunk_text: 'Passage 1' }]);
    expect(turn.metadata?.groundedness).toBe(0.5);
  });

  it('fails on an error event, with the code as its status and the reference', () => {
    const turn = play([
      event('sources', { sources: [] }),
      event('error', {
        error: { code: 'service_unavailable', message: 'broke off', details: {} },
        request_id: 'req_1',
      }),
    ]);

    expect(turn.status).toBe('failed');
    expect(turn.error).toBeInstanceOf(ApiError);
    expect(turn.error).toMatchObject({ status: 503, requestId: 'req_1' });
  });

  it('ignores events it does not know and data that is not JSON', () => {
    const before = play([event('delta', { text: 'Hi' })]);

    expect(applyEvent(before, { event: 'progress', data: '{}' })).toBe(before);
    expect(applyEvent(before, { event: 'delta', data: 'not json' })).toBe(before);
  });

  it('keeps the text of a stream cut short, and says it was cut', () => {
    const turn = cutTurn(play([event('delta', { text: 'Two' })]));

    expect(turn).toMatchObject({ status: 'cut', text: 'Two' });
    expect((turn.error as ApiError).message).toMatch(/cut off/);
  });
});

describe('refusals of a question', () => {
  it('says a 409 means the agent is disabled, and keeps the reference', () => {
    const refused = ApiError.from(
      { error: { code: 'invalid_request', message: 'Agent agt_1 is disabled' }, request_id: 'r' },
      { status: 409, headers: new Headers() },
    );

    expect(askFailure(refused)).toMatchObject({
      message: expect.stringMatching(/^This agent is disabled/),
      requestId: 'r',
    });
  });
});

describe('what a person may do with agents', () => {
  const me = (role: Me['access']['role'], agentIds: string[] | null = null) =>
    ({ access: { role, group_ids: [], agent_ids: agentIds } }) as unknown as Me;

  it.each([
    ['readonly', null, { change: false, create: false, feedback: false, modelKeys: false }],
    ['train', null, { change: false, create: false, feedback: true, modelKeys: false }],
    ['configure', null, { change: true, create: true, feedback: true, modelKeys: false }],
    ['configure', ['agt_1'], { change: true, create: false, feedback: true, modelKeys: false }],
    ['admin', null, { change: true, create: true, feedback: true, modelKeys: true }],
  ] as const)('%s with agents %j', (role, agentIds, may) => {
    expect(agentPermissions(me(role, agentIds ? [...agentIds] : null))).toEqual(may);
  });
});

describe("the agent form's body", () => {
  const form = (entries: Array<[string, string]>) => {
    const data = new FormData();
    for (const [name, value] of entries) data.append(name, value);
    return data;
  };
  const filled = form([
    ['name', '  Help  '],
    ['data_source_ids', 'ds_1'],
    ['data_source_ids', 'ds_2'],
    ['rag_strategy', 'mmr'],
    ['model', 'offline-extractive'],
    ['temperature', '0.5'],
    ['max_tokens', '256'],
    ['system_prompt', '   '],
    ['status', 'disabled'],
    ['model_key_id', ''],
  ]);

  it('reads every field, a blank prompt as none, and the key only for those who choose it', () => {
    const body = agentInput(filled, false);

    expect(body).toEqual({
      name: 'Help',
      data_source_ids: ['ds_1', 'ds_2'],
      rag_strategy: 'mmr',
      model: 'offline-extractive',
      temperature: 0.5,
      max_tokens: 256,
      system_prompt: null,
      status: 'disabled',
    });
    expect(agentInput(filled, true).model_key_id).toBeNull();
  });
});

describe('numbers of the playground and the list', () => {
  it.each([
    [0.032522, '0.03252'],
    [1, '1'],
    [1000, '1000'],
    [0.5, '0.5'],
  ])('writes the score %s as %s', (score, written) => {
    expect(formatScore(score)).toBe(written);
  });

  it.each([
    [0, '$0'],
    [0.0000123, '$0.000012'],
    [0.25, '$0.25'],
  ])('writes the cost %s as %s', (usd, written) => {
    expect(formatCost(usd)).toBe(written);
  });

  it('keeps the search and the page in the address, dropping the defaults', () => {
    expect(listPath(' bill ', 1)).toBe('/agents?q=bill');
    expect(listPath('', 3)).toBe('/agents?page=3');
    expect(listPath('a&b', 2)).toBe('/agents?q=a%26b&page=2');
    expect(pageOf({ page: '2' })).toBe(2);
    expect(pageOf({ page: 'x' })).toBe(1);
  });
});
