import type { MailMessage } from '../../ports/mailer.port';

/** The product's name, as the mails sign off. */
const SERVICE_NAME = 'Agent Query Service';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or attribute value: nothing a name holds becomes markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

/**
 * One line for a subject or a greeting: control characters (a header
 * injection's line breaks among them) become spaces, runs of space one.
 */
function oneLine(text: string): string {
  return text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `2026-01-31 12:00 UTC`: unambiguous wherever the reader is. */
function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

interface Composed {
  readonly subject: string;
  /** Paragraphs before the link. */
  readonly before: readonly string[];
  readonly action: string;
  /** Paragraphs after the link. */
  readonly after: readonly string[];
}

/** The same words as plain text and as HTML (names escaped), the link on a line of its own. */
function render(composed: Composed, link: string): Pick<MailMessage, 'text' | 'html'> {
  const text = [...composed.before, link, ...composed.after, `— ${SERVICE_NAME}`].join('\n\n');
  const paragraph = (words: string) => `<p>${escapeHtml(words)}</p>`;
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(composed.subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; max-width: 36em">',
    ...composed.before.map(paragraph),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(composed.action)}</a></p>`,
    `<p>Or copy this address into your browser:<br>${escapeHtml(link)}</p>`,
    ...composed.after.map(paragraph),
    `<p>— ${escapeHtml(SERVICE_NAME)}</p>`,
    '</body></html>',
  ].join('\n');
  return { text, html };
}

export interface InvitationMailInput {
  readonly to: string;
  readonly inviteeName: string;
  readonly organizationName: string;
  readonly orgId: string;
  readonly userId: string;
  /** The console's page that accepts it, the token in the fragment. */
  readonly link: string;
  /** ISO 8601. */
  readonly expiresAt: string;
}

/**
 * The invitation a new user receives. It names the organization and
 * holds the one link; no key, no password, nothing else secret.
 */
export function invitationMail(input: InvitationMailInput): MailMessage {
  const organization = oneLine(input.organizationName);
  const composed: Composed = {
    subject: `You are invited to ${organization} on the ${SERVICE_NAME}`,
    before: [
      `Hello ${oneLine(input.inviteeName)},`,
      `You have been invited to join ${organization} on the ${SERVICE_NAME}. To accept, choose a password at this link before ${utcTime(input.expiresAt)}:`,
    ],
    action: `Accept the invitation to ${organization}`,
    after: [
      'The link works once. If you did not expect this invitation, ignore this mail: nothing happens unless the link is opened.',
    ],
  };
  return {
    to: input.to,
    subject: composed.subject,
    ...render(composed, input.link),
    about: {
      kind: 'invitation',
      orgId: input.orgId,
      userId: input.userId,
      link: input.link,
      expiresAt: input.expiresAt,
    },
  };
}

export interface PasswordResetMailInput {
  readonly to: string;
  readonly organizationName: string;
  readonly orgId: string;
  readonly userId: string;
  /** The console's page that sets the new password, the token in the fragment. */
  readonly link: string;
  /** ISO 8601. */
  readonly expiresAt: string;
}

/**
 * The mail that lets a person set a new password. It names the
 * organization and the address, holds the one link (an hour, once), and
 * says what to do when the request was not theirs.
 */
export function passwordResetMail(input: PasswordResetMailInput): MailMessage {
  const organization = oneLine(input.organizationName);
  const composed: Composed = {
    subject: `Reset your password for ${organization}`,
    before: [
      `Someone asked to reset the password of ${oneLine(input.to)} in ${organization} on the ${SERVICE_NAME}. To choose a new password, open this link before ${utcTime(input.expiresAt)} (one hour):`,
    ],
    action: `Choose a new password for ${organization}`,
    after: [
      'The link works once. Setting a new password signs you out everywhere else.',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ],
  };
  return {
    to: input.to,
    subject: composed.subject,
    ...render(composed, input.link),
    about: {
      kind: 'password_reset',
      orgId: input.orgId,
      userId: input.userId,
      link: input.link,
      expiresAt: input.expiresAt,
    },
  };
}
