import lazy from 'preact-iso/lazy';
import type { SettingsPage } from './page-match';

export type { SettingsPage } from './page-match';
export { settingsPageFor } from './page-match';

export const SETTINGS_PATH = '/settings';

/**
 * Settings' pages, in the sub-navigation's order (issue 22: "Organization",
 * "Users", "Groups", "API keys", "Model keys", "Webhooks", "Single sign-on",
 * after everyone's own "Profile"). A page is one module here and one row;
 * it loads on first use. A row is shown only to the roles the API
 * lets use it, and a page that is not built has no row.
 */
export const SETTINGS_PAGES: readonly SettingsPage[] = [
  {
    path: SETTINGS_PATH,
    label: 'Profile',
    role: 'readonly',
    component: lazy(() => import('./profile')),
  },
  {
    path: `${SETTINGS_PATH}/organization`,
    label: 'Organization',
    role: 'admin',
    component: lazy(() => import('./organization')),
  },
  {
    path: `${SETTINGS_PATH}/users`,
    label: 'Users',
    role: 'admin',
    component: lazy(() => import('./users')),
  },
  {
    path: `${SETTINGS_PATH}/groups`,
    label: 'Groups',
    role: 'admin',
    component: lazy(() => import('./groups')),
  },
  {
    path: `${SETTINGS_PATH}/api-keys`,
    label: 'API keys',
    role: 'admin',
    component: lazy(() => import('./api-keys')),
  },
  {
    path: `${SETTINGS_PATH}/model-keys`,
    label: 'Model keys',
    role: 'admin',
    component: lazy(() => import('./model-keys')),
  },
  {
    path: `${SETTINGS_PATH}/webhooks`,
    label: 'Webhooks',
    role: 'configure',
    component: lazy(() => import('./webhooks')),
  },
  {
    path: `${SETTINGS_PATH}/sso`,
    label: 'Single sign-on',
    role: 'admin',
    component: lazy(() => import('./sso')),
  },
];
