import type { APIGatewayProxyResult } from 'aws-lambda';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/**
 * D14's error pages for browsers coming back from an identity provider: a
 * small HTML document with a fixed title and explanation, never the reason
 * (that goes to the log), so nothing an attacker sends is reflected.
 */
export function errorPage(
  statusCode: number,
  title: string,
  explanation: string,
): APIGatewayProxyResult {
  const body = [
    '<!doctype html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(explanation)}</p></body>`,
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

/** A redirect that a browser follows with GET (303). */
export function seeOther(location: string, cookies: readonly string[] = []): APIGatewayProxyResult {
  return {
    statusCode: 303,
    headers: { Location: location },
    multiValueHeaders: cookies.length > 0 ? { 'Set-Cookie': [...cookies] } : {},
    body: '',
  };
}
