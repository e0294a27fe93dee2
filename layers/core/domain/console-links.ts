/** Issue 21: the console's page that accepts an invitation (web/), the token in its fragment. */
export const INVITATION_PAGE_PATH = '/invitations/accept';

/** Issue 22 item 9: the console's page a password reset link opens. */
export const PASSWORD_RESET_PAGE_PATH = '/password-reset';

/**
 * The link an invited user opens. The token rides in the fragment,
 * which browsers never send: it stays out of server logs and `Referer`.
 */
export function invitationUrl(origin: string, token: string): string {
  return `${origin}${INVITATION_PAGE_PATH}#token=${encodeURIComponent(token)}`;
}

/** The link a password reset mail holds, the token in the fragment as invitations'. */
export function passwordResetUrl(origin: string, token: string): string {
  return `${origin}${PASSWORD_RESET_PAGE_PATH}#token=${encodeURIComponent(token)}`;
}
