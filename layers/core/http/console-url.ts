/** Issue 21: the console's page that accepts an invitation (web/), the token in its fragment. */
export const INVITATION_PAGE_PATH = '/invitations/accept';

/**
 * The console's origin, the one place that says where it is: behind
 * CloudFront, the distribution's (`SVC_CONSOLE_ORIGIN`, P236, passed as
 * `publicBaseUrl`); otherwise the API's own origin (P66), its public address
 * (P91): configured (`SVC_PUBLIC_URL`, the local gateway's) or as API Gateway
 * was reached. Unknown (never expected), links stay relative to that origin.
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
