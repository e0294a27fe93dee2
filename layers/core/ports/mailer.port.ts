/** Issue 22 item 9: why a mail is sent. */
export const MAIL_KINDS = ['invitation', 'password_reset'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/**
 * One mail to one person: plain text and HTML with the same words,
 * composed in one place (use-cases/mail/mail-messages.ts). Its only secret
 * is `about.link`.
 */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /**
   * What the mail is about, for the adapter that sends nothing: on one
   * machine it prints the link on the operator's terminal; in the
   * cloud it logs the kind and the ids, never the link.
   */
  readonly about: {
    readonly kind: MailKind;
    readonly orgId: string;
    readonly userId: string;
    readonly link: string;
    /** ISO 8601: when the link stops working. */
    readonly expiresAt: string;
  };
}

/** `sent`: handed to the mail service; `not_sent`: none configured, or it refused (logged). */
export type MailOutcome = 'sent' | 'not_sent';

/**
 * Sends mail: Amazon SES in the cloud, SMTP on one machine when
 * `SVC_SMTP_URL` is set, otherwise nothing is sent and the mail is logged.
 * Never throws: a mail service that fails is logged (without the message)
 * and answers `not_sent`, so what asked for the mail goes on (the
 * invitation is still shown to its creator; a reset request still answers
 * the same).
 */
export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
}

/** Where an adapter reports a mail it could not send: the kind, the ids and why, never the message. */
export type MailFailureLog = (failure: {
  readonly kind: MailKind;
  readonly org_id: string;
  readonly user_id: string;
  readonly error: string;
}) => void;
