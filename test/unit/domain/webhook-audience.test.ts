import { ALL_AGENTS } from '../../../layers/core/domain/agent-access';
import { EVENT_TYPES, type EventType } from '../../../layers/core/domain/events';
import {
  type EventVisibility,
  mayReceive,
  NOBODY,
  ORGANIZATION_AUDIENCE,
  visibilityOf,
  type WebhookAudience,
} from '../../../layers/core/domain/webhook-audience';

/** The payload each use case writes for an event about agent `agt_x` (see visibilityOf). */
const PAYLOADS: Record<EventType, Record<string, unknown>> = {
  'interaction.created': { interaction: { id: 'int_1', agentId: 'agt_x', prompt: 'q' } },
  'interaction.completed': { interaction: { id: 'int_1', agentId: 'agt_x', response: 'a' } },
  'interaction.feedback': { interaction: { id: 'int_1', agent_id: 'agt_x' }, feedback: 'positive' },
  'agent.created': { id: 'agt_x', name: 'Help' },
  'agent.updated': { agent: { id: 'agt_x', name: 'Help' }, changes: {} },
  'agent.deleted': { id: 'agt_x' },
  'eval.completed': { evaluation: { id: 'evl_1', agent_id: 'agt_x' } },
  'datasource.created': { id: 'ds_1' },
  'datasource.processed': { id: 'ds_1' },
  'datasource.failed': { id: 'ds_1' },
  'user.created': { id: 'usr_1' },
  'user.updated': { user: { id: 'usr_1' }, changes: {} },
};

const restrictedTo = (...ids: string[]): WebhookAudience => ({
  kind: 'user',
  role: 'configure',
  agents: { kind: 'only', agentIds: new Set(ids) },
});
const unrestricted = (role: 'readonly' | 'configure' | 'admin'): WebhookAudience => ({
  kind: 'user',
  role,
  agents: ALL_AGENTS,
});

describe('Who may receive a webhook event (P217, P218)', () => {
  it.each(EVENT_TYPES.map((type) => [type]))(
    '%s: reads its agent, if any, from the payload as written',
    (type) => {
      const visibility = visibilityOf(type, PAYLOADS[type]);

      if (type.startsWith('datasource.')) expect(visibility).toEqual({ kind: 'members' });
      else if (type.startsWith('user.')) expect(visibility).toEqual({ kind: 'users' });
      else expect(visibility).toEqual({ kind: 'agent', agentId: 'agt_x' });
    },
  );

  it('names no agent when the payload lacks one, and such an event reaches no restricted owner', () => {
    const visibility = visibilityOf('interaction.created', { interaction: { agentId: 7 } });

    expect(visibility).toEqual({ kind: 'agent', agentId: undefined });
    expect(mayReceive(restrictedTo('agt_x'), visibility)).toBe(false);
    expect(mayReceive(ORGANIZATION_AUDIENCE, visibility)).toBe(true);
  });

  const about = (agentId: string): EventVisibility => ({ kind: 'agent', agentId });
  const users: EventVisibility = { kind: 'users' };
  const members: EventVisibility = { kind: 'members' };

  it.each([
    ['an API key', ORGANIZATION_AUDIENCE, [true, true, true, true]],
    ['an unrestricted admin', unrestricted('admin'), [true, true, true, true]],
    ['an unrestricted configure user', unrestricted('configure'), [true, true, false, true]],
    ['a readonly user', unrestricted('readonly'), [true, true, false, true]],
    ['a user restricted to agt_x', restrictedTo('agt_x'), [true, false, false, true]],
    ['a user whose groups allow no agent', restrictedTo(), [false, false, false, true]],
    ['nobody (no owner, or deactivated or gone)', NOBODY, [false, false, false, true]],
  ] as const)('%s: agt_x, agt_y, users, data sources', (_name, audience, expected) => {
    expect([
      mayReceive(audience, about('agt_x')),
      mayReceive(audience, about('agt_y')),
      mayReceive(audience, users),
      mayReceive(audience, members),
    ]).toEqual(expected);
  });
});
