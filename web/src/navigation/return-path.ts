/** The public pages' paths, and where signing in may return to; screens and the route table both read them. */
export const SIGN_IN_PATH = '/sign-in';
export const SETUP_PATH = '/setup';
/** Where an invitation link opens (`invitation_url`: `<origin>/invitations/accept#token=svcinv_…`). */
export const INVITATION_PATH = '/invitations/accept';
/** "Forgot password?" asks for the email here. */
export const FORGOT_PASSWORD_PATH = '/forgot-password';
/** Where a password reset mail's link opens (`<origin>/password-reset#token=svcpwr_…`). */
export const PASSWORD_RESET_PATH = '/password-reset';

/** Pages that are never returned to after signing in (they are for people not signed in). */
const NOT_RETURNED_TO = [
  SIGN_IN_PATH,
  SETUP_PATH,
  INVITATION_PATH,
  FORGOT_PASSWORD_PATH,
  PASSWORD_RESET_PATH,
];

/** A same-origin path to return to after signing in; anything else (another origin, `//host`) is refused. */
export function safeReturnPath(candidate: string | undefined): string | null {
  if (!candidate?.startsWith('/') || candidate.startsWith('//') || candidate.startsWith('/\\')) {
    return null;
  }
  const path = candidate.split(/[?#]/)[0] ?? '';
  return NOT_RETURNED_TO.includes(path) ? null : candidate;
}

/**
 * The links the console's router handles itself: every same-origin link but
 * the API's. A link to `/api/…` (SSO's start, a file download) is the
 * service's own page, so the browser must really go there; without this the
 * router would catch the click and show "Page not found".
 */
export const CONSOLE_LINKS = /^(?!(?:https?:\/\/[^/]+)?\/api\/)/;
