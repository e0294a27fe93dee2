import { screenName } from '../../bench/console';

describe('the console bench names each lazily loaded screen by its module', () => {
  it.each([
    ['web/src/screens/agents/index.tsx', 'agents'],
    ['web/src/screens/settings/index.tsx', 'settings'],
    ['web/src/screens/settings/users/index.tsx', 'settings/users'],
    ['web/src/screens/settings/profile.tsx', 'settings/profile'],
  ])('%s is %s', (entry, name) => {
    expect(screenName(entry)).toBe(name);
  });
});
