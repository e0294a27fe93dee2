import type { Mailer, MailMessage, MailOutcome } from '../../ports/mailer.port';

/**
 * Where no mail service is configured, mail is not sent but handed to
 * `record`: on one machine the runtime prints the link on the operator's
 * terminal; in the cloud it is logged by kind and ids alone, never
 * with the link (lib: `cloudMailer`).
 */
export class UnsentMail implements Mailer {
  constructor(private readonly record: (about: MailMessage['about']) => void) {}

  async send(message: MailMessage): Promise<MailOutcome> {
    this.record(message.about);
    return 'not_sent';
  }
}
