/** The public pages' paths, and where signing in may return to (P229); screens and the route table both read them. */
export const SIGN_IN_PATH = '/sign-in';
export const SETUP_PATH = '/setup';
/** Where an invitation link opens (`invitation_url`: `<origin>/invitations/accept#token=svcinv_…`). */
export const INVITATION_PATH = '/invitations/accept';

/** A same-origin path to return to after signing in; anything else (another origin, `//host`) is refused. */
export function safeReturnPath(candidate: string | undefined): string | null {
  if (!candidate?.startsWith('/') || candidate.startsWith('//') || candidate.startsWith('/\\')) {
    return null;
  }
  const path = candidate.split(/[?#]/)[0] ?? '';
  return path === SIGN_IN_PATH || path === SETUP_PATH || path === INVITATION_PATH
    ? null
    : candidate;
}
