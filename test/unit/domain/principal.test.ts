import { ALL_AGENTS } from '../../../layers/core/domain/agent-access';
import {
  type ApiKeyPrincipal,
  agentAccessOf,
  principalId,
  type SessionPrincipal,
} from '../../../layers/core/domain/principal';

const key: ApiKeyPrincipal = {
  kind: 'api_key',
  orgId: 'org_1',
  keyId: 'key_1',
  scopes: ['Read'],
  environment: 'test',
};
const user: SessionPrincipal = {
  kind: 'session',
  orgId: 'org_1',
  userId: 'usr_1',
  role: 'readonly',
  agents: { kind: 'only', agentIds: new Set(['agt_a']) },
  groupIds: ['grp_1'],
  sessionId: 'sess_1',
  authTime: 0,
};

describe('Function: principalId', () => {
  it("keeps a key's buckets and records under the key, a user's under the user", () => {
    expect(principalId(key)).toBe('key_1');
    expect(principalId(user)).toBe('usr_1');
  });
});

describe('Function: agentAccessOf (P80)', () => {
  it('gives an API key every agent of its organization', () => {
    expect(agentAccessOf(key)).toBe(ALL_AGENTS);
  });

  it('gives a signed-in user the agents their groups allow', () => {
    expect(agentAccessOf(user)).toBe(user.agents);
  });
});
