import type { FunctionComponent } from 'preact';
import lazy from 'preact-iso/lazy';
import type { Role } from '../state/session';

/**
 * The console's screens, in navigation order (issue 21: Agents, Data
 * sources, Knowledge base, Interactions, Analytics, Settings). A screen is
 * one folder under screens/ and one row here; it is loaded on first use.
 * Only screens that exist have a row (no link to a page that is not
 * built), and a row is shown only to roles that may use it.
 */
export interface ScreenRoute {
  readonly path: string;
  /** The navigation link's exact name. */
  readonly label: string;
  /** The least role that may use the screen; below it the link is not shown at all. */
  readonly role: Role;
  readonly component: FunctionComponent;
}

export const SCREENS: readonly ScreenRoute[] = [
  {
    path: '/agents',
    label: 'Agents',
    role: 'readonly',
    component: lazy(() => import('../screens/agents')),
  },
  {
    path: '/data-sources',
    label: 'Data sources',
    role: 'readonly',
    component: lazy(() => import('../screens/data-sources')),
  },
  {
    path: '/kb',
    label: 'Knowledge base',
    role: 'readonly',
    component: lazy(() => import('../screens/kb')),
  },
  {
    path: '/interactions',
    label: 'Interactions',
    role: 'readonly',
    component: lazy(() => import('../screens/interactions')),
  },
  {
    path: '/analytics',
    label: 'Analytics',
    role: 'readonly',
    component: lazy(() => import('../screens/analytics')),
  },
  {
    path: '/evaluations',
    label: 'Evaluations',
    role: 'readonly',
    component: lazy(() => import('../screens/evaluations')),
  },
  {
    path: '/settings',
    label: 'Settings',
    role: 'readonly',
    component: lazy(() => import('../screens/settings')),
  },
];

/** Pages for people who are not signed in. */
export const PUBLIC_SCREENS = {
  signIn: lazy(() => import('../screens/sign-in')),
  firstAdministrator: lazy(() => import('../screens/first-administrator')),
  acceptInvitation: lazy(() => import('../screens/accept-invitation')),
  forgotPassword: lazy(() => import('../screens/forgot-password')),
  passwordReset: lazy(() => import('../screens/password-reset')),
};

/**
 * Starts loading the screen at `path` (and its stylesheet) while the
 * console is still asking who is signed in, instead of after: the two
 * requests overlap, and the screen shows sooner.
 */
export function preloadScreenAt(path: string, signInPath: string): void {
  const screen =
    path === signInPath
      ? PUBLIC_SCREENS.signIn
      : SCREENS.find((route) => path === route.path || path.startsWith(`${route.path}/`))
          ?.component;
  // A failure shows when the screen renders (its error boundary), not here.
  (screen as { preload?: () => Promise<unknown> } | undefined)?.preload?.().catch(() => undefined);
}

// The pages' own paths and the return-path rule live in navigation/, where screens read them too;
// the app shell re-exports them so its own files import one module.
export {
  CONSOLE_LINKS,
  FORGOT_PASSWORD_PATH,
  INVITATION_PATH,
  PASSWORD_RESET_PATH,
  SETUP_PATH,
  SIGN_IN_PATH,
  safeReturnPath,
} from '../navigation/return-path';
