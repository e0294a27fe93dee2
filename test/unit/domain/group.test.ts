import fc from 'fast-check';
import { mayUseAgent } from '../../../layers/core/domain/agent-access';
import {
  effectiveAccess,
  GROUP_DEFAULT_ROLE,
  type GroupGrant,
} from '../../../layers/core/domain/group';
import { ROLES, roleAtLeast } from '../../../layers/core/domain/user';

const grant = (id: string, role: GroupGrant['role'], agentIds: string[] | null): GroupGrant => ({
  id,
  role,
  agent_ids: agentIds,
});

describe('Function: effectiveAccess (issue 9 item 5, P80)', () => {
  it('keeps the own role and every agent without groups', () => {
    expect(effectiveAccess('train', [])).toEqual({ role: 'train', agents: { kind: 'all' } });
  });

  it('takes the highest of the own role and the groups’ roles', () => {
    expect(effectiveAccess('readonly', [grant('a', 'configure', null)]).role).toBe('configure');
    expect(effectiveAccess('configure', [grant('a', 'train', null)]).role).toBe('configure');
  });

  it('restricts only when every group restricts, to the union of their agents', () => {
    const both = effectiveAccess('readonly', [
      grant('a', 'readonly', ['x']),
      grant('b', 'train', ['y']),
    ]);
    const oneOpen = effectiveAccess('readonly', [
      grant('a', 'readonly', ['x']),
      grant('b', 'readonly', null),
    ]);

    expect(both.agents).toEqual({ kind: 'only', agentIds: new Set(['x', 'y']) });
    expect(oneOpen.agents).toEqual({ kind: 'all' });
  });

  it('gives a group created without a role no more than every user has (P82)', () => {
    expect(GROUP_DEFAULT_ROLE).toBe(ROLES[0]);
  });

  it('never restricts an effective admin', () => {
    expect(effectiveAccess('admin', [grant('a', 'readonly', ['x'])]).agents).toEqual({
      kind: 'all',
    });
    expect(effectiveAccess('train', [grant('a', 'admin', ['x'])]).agents).toEqual({ kind: 'all' });
  });

  it('holds its rules for any roles and groups (property)', () => {
    const grants = fc.array(
      fc.record({
        id: fc.string(),
        role: fc.constantFrom(...ROLES),
        agent_ids: fc.option(fc.array(fc.constantFrom<string>('x', 'y', 'z')), { nil: null }),
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...ROLES), grants, (own, given) => {
        const access = effectiveAccess(own, given);

        expect(roleAtLeast(access.role, own)).toBe(true);
        for (const each of given) expect(roleAtLeast(access.role, each.role)).toBe(true);
        const restricted =
          access.role !== 'admin' && given.length > 0 && given.every((g) => g.agent_ids);
        expect(access.agents.kind).toBe(restricted ? 'only' : 'all');
        for (const agent of ['x', 'y', 'z']) {
          const granted = given.some((g) => g.agent_ids === null || g.agent_ids.includes(agent));
          if (restricted) expect(mayUseAgent(access.agents, agent)).toBe(granted);
        }
      }),
    );
  });
});
