import type { APIGatewayProxyResult } from 'aws-lambda';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/** Where a page leads next: a link, which the browser follows at once when `goNow`. */
export interface PageLink {
  readonly href: string;
  readonly text: string;
  readonly goNow?: boolean;
}

/**
 * SSO's error pages for browsers coming back from an identity provider: a
 * small HTML document with a fixed title and explanation, never the reason
 * (that goes to the log), so nothing an attacker sends is reflected.
 */
export function errorPage(
  statusCode: number,
  title: string,
  explanation: string,
  onward?: PageLink,
): APIGatewayProxyResult {
  const link = onward
    ? `<p><a href="${escapeHtml(onward.href)}">${escapeHtml(onward.text)}</a></p>`
    : '';
  // A refresh of 0 s moves the browser on at once (no timing to miss, WCAG F41); the link stays for anyone it does not move.
  const refresh = onward?.goNow
    ? `<meta http-equiv="refresh" content="0; url=${escapeHtml(onward.href)}">`
    : '';
  const body = [
    '<!doctype html>',
    '<html lang="en">',
    `<head><meta charset="utf-8">${refresh}<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(explanation)}</p>${link}</body>`,
    '</html>',
  ].join('\n');
  return { statusCode, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body };
}

export const AUTHENTICATION_FAILED = (): APIGatewayProxyResult =>
  errorPage(
    401,
    'Authentication failed',
    'Your identity provider did not confirm who you are. Start signing in again, or ask your administrator.',
  );

export const UNAUTHORIZED_DOMAIN = (): APIGatewayProxyResult =>
  errorPage(
    403,
    'Unauthorized domain',
    "Your email address is outside your organization's verified domains. Ask your administrator.",
  );

/**
 * An identity provider that takes the AuthnRequest by HTTP-POST only
 * (SAML Bindings §3.5). The browser must post a form to it; without a
 * script (the service's pages run none) the person presses the one button,
 * which has the focus. Values are escaped; the request holds no secret.
 */
export function postFormPage(
  form: { readonly action: string; readonly fields: Readonly<Record<string, string>> },
  cookies: readonly string[] = [],
): APIGatewayProxyResult {
  const inputs = Object.entries(form.fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('');
  const body = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>Continue to your identity provider</title></head>',
    '<body><h1>Continue to your identity provider</h1>',
    '<p>Your organization signs in with its identity provider. Continue to sign in there.</p>',
    `<form method="post" action="${escapeHtml(form.action)}">${inputs}<button type="submit" autofocus>Continue</button></form>`,
    '</body>',
    '</html>',
  ].join('\n');
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' },
    multiValueHeaders: cookies.length > 0 ? { 'Set-Cookie': [...cookies] } : {},
    body,
  };
}

/** A redirect that a browser follows with GET (303). */
export function seeOther(location: string, cookies: readonly string[] = []): APIGatewayProxyResult {
  return {
    statusCode: 303,
    headers: { Location: location },
    multiValueHeaders: cookies.length > 0 ? { 'Set-Cookie': [...cookies] } : {},
    body: '',
  };
}
