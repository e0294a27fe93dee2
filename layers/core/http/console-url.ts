/** Issue 21: the console's page that accepts an invitation (web/), the token in its fragment. */
export const INVITATION_PAGE_PATH = '/invitations/accept';

/**
 * The console's origin, the one place that says where it is. The console is
 * served from the API's own origin (P66), so it is the API's public address
 * (P91): configured (`SVC_PUBLIC_URL`, the local gateway's) or as API Gateway
 * was reached. Unknown (never expected), links stay relative to that origin.
 * A deployment serving the console elsewhere would answer here.
 */
export function consoleOrigin(where: {
  readonly publicBaseUrl: string | undefined;
  readonly apiBaseUrl: string | undefined;
}): string {
  return (where.publicBaseUrl ?? where.apiBaseUrl ?? '').replace(/\/+$/, '');
}

/**
 * P61: the link an invited user opens. The token rides in the fragment,
 * which browsers never send: it stays out of server logs and `Referer`.
 */
export function invitationUrl(origin: string, token: string): string {
  return `${origin}${INVITATION_PAGE_PATH}#token=${encodeURIComponent(token)}`;
}
