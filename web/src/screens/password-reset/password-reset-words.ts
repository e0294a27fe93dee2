import { ApiError } from '../../api/api-error';
import { formatWait } from '../../format/format';

/**
 * What "Forgot password?" says once asked, whatever the address: the
 * service answers alike for every address, and so does the page.
 */
export const RESET_REQUESTED =
  'If an account with this email signs in with a password, we have mailed it a link to choose a new one. The link works once, for an hour. If nothing arrives, check your spam folder or ask your administrator.';

/**
 * The token of a password reset link (`<origin>/password-reset#token=svcpwr_…`).
 * It travels in the fragment, which browsers never send to a server or in a
 * Referer; the page removes it from the address bar once read.
 */
export function passwordResetToken(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token?.startsWith('svcpwr_') ? token : null;
}

/** A refused request for a link, in words; null: the shared error notice says it. */
export function requestMessage(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 429) return null;
  const wait = error.retryAfter === null ? 'a few minutes' : formatWait(error.retryAfter);
  return `Too many requests for this address. Try again in ${wait}.`;
}

/** A refused new password, in words; null: the shared error notice says it. */
export function resetMessage(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 400 && error.fields.some((field) => field.path === 'token')) {
    return 'This link no longer works: it was used already, a newer one or a password change replaced it, or its hour is over. Ask for a new link.';
  }
  if (error.reason === 'sso_required') {
    return 'Your organization signs in with SSO: you have no password to reset. Sign in with SSO instead.';
  }
  return null;
}
