import { type SettingsPage, settingsPageFor } from '../../src/screens/settings/page-match';

const page = (path: string): SettingsPage => ({
  path,
  label: path,
  role: 'readonly',
  component: () => null,
});
const PAGES = [page('/settings'), page('/settings/users'), page('/settings/users-extra')];

describe('settingsPageFor', () => {
  it('finds the page a path equals', () => {
    expect(settingsPageFor('/settings/users', PAGES)?.path).toBe('/settings/users');
  });

  it('gives a path under a page to that page, the longest match winning', () => {
    expect(settingsPageFor('/settings/users/usr_1', PAGES)?.path).toBe('/settings/users');
    expect(settingsPageFor('/settings/password', PAGES)?.path).toBe('/settings');
  });

  it('does not take a sibling that merely shares a prefix', () => {
    expect(settingsPageFor('/settings/users-extra', PAGES)?.path).toBe('/settings/users-extra');
    expect(settingsPageFor('/settingsx', PAGES)).toBeNull();
  });
});
