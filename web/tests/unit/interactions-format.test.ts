import { askerLabel } from '../../src/screens/interactions/interaction-format';

describe('who asked, in words', () => {
  it('names a user, with their email when the viewer may read it', () => {
    expect(
      askerLabel({ type: 'user', id: 'usr_1', name: 'Dana', email: 'dana@example.com' }),
    ).toEqual({
      name: 'Dana',
      detail: 'dana@example.com',
    });
    expect(askerLabel({ type: 'user', id: 'usr_1', name: 'Dana', email: null })).toEqual({
      name: 'Dana',
      detail: null,
    });
  });

  it('names an API key by its name, and says what is gone or unknown instead of an id', () => {
    expect(
      askerLabel({ type: 'api_key', id: 'key_1', name: 'Nightly report', email: null }),
    ).toEqual({ name: 'Nightly report', detail: 'API key' });
    expect(askerLabel({ type: 'api_key', id: 'key_1', name: null, email: null }).name).toBe(
      'A deleted API key',
    );
    expect(askerLabel({ type: 'user', id: 'usr_1', name: null, email: null }).name).toBe(
      'A removed user',
    );
    expect(askerLabel(null)).toEqual({
      name: 'Unknown',
      detail: 'asked before askers were recorded',
    });
  });
});
