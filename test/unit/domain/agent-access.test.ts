import { ALL_AGENTS, mayUseAgent, usableBy } from '../../../layers/core/domain/agent-access';

const only = (...agentIds: string[]) => ({ kind: 'only' as const, agentIds: new Set(agentIds) });

describe('Function: mayUseAgent (P80, P81)', () => {
  it('lets a caller with every agent use any agent', () => {
    expect(mayUseAgent(ALL_AGENTS, 'agt_a')).toBe(true);
  });

  it('lets a restricted caller use its agents and no other', () => {
    expect(mayUseAgent(only('agt_a', 'agt_b'), 'agt_b')).toBe(true);
    expect(mayUseAgent(only('agt_a', 'agt_b'), 'agt_c')).toBe(false);
    expect(mayUseAgent(only(), 'agt_a')).toBe(false);
  });
});

describe('Function: usableBy (P81)', () => {
  const items = [
    { id: 'int_1', agent: 'agt_a' },
    { id: 'int_2', agent: 'agt_b' },
    { id: 'int_3', agent: 'agt_a' },
  ];

  it('keeps every item, in order, for a caller with every agent, in a list of its own', () => {
    const kept = usableBy(ALL_AGENTS, items, (item) => item.agent);

    expect(kept).toEqual(items);
    expect(kept).not.toBe(items);
  });

  it("keeps only the items of a restricted caller's agents, in order", () => {
    const kept = usableBy(only('agt_a'), items, (item) => item.agent);

    expect(kept.map((item) => item.id)).toEqual(['int_1', 'int_3']);
    expect(usableBy(only(), items, (item) => item.agent)).toEqual([]);
  });
});
