export {
  INVITATION_PAGE_PATH,
  invitationUrl,
  PASSWORD_RESET_PAGE_PATH,
  passwordResetUrl,
} from '../domain/console-links';

/**
 * The console's origin, the one place that says where it is: behind
 * CloudFront, the distribution's (`SVC_CONSOLE_ORIGIN`, P236, passed as
 * `publicBaseUrl`); otherwise the API's own origin, its public address:
 * configured (`SVC_PUBLIC_URL`, the local gateway's) or as API Gateway
 * was reached. Unknown (never expected), links stay relative to that origin.
 */
export function consoleOrigin(where: {
  readonly publicBaseUrl: string | undefined;
  readonly apiBaseUrl: string | undefined;
}): string {
  return (where.publicBaseUrl ?? where.apiBaseUrl ?? '').replace(/\/+$/, '');
}

/**
 * The origin links back to the service are made absolute with (an uploaded
 * file's `document_url`): the console's, where a browser's session cookie
 * is sent and which forwards the API; else the API's public address. Families
 * whose wiring has no configured address pass none and use the request's.
 */
export function publicOriginOf(
  deps: {
    readonly consoleOrigin?: string | undefined;
    readonly publicBaseUrl?: () => string | undefined;
  },
  client: { readonly apiBaseUrl: string | undefined },
): string {
  return consoleOrigin({
    publicBaseUrl: deps.consoleOrigin ?? deps.publicBaseUrl?.(),
    apiBaseUrl: client.apiBaseUrl,
  });
}
