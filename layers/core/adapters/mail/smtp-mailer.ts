import { createTransport, type Transporter } from 'nodemailer';
import type { Mailer, MailFailureLog, MailMessage, MailOutcome } from '../../ports/mailer.port';

/**
 * P265: mail through an SMTP server (`SVC_SMTP_URL`, e.g.
 * `smtps://user:pass@mail.example.com:465` or `smtp://127.0.0.1:2525`), with
 * nodemailer. One machine only: no Lambda bundle carries nodemailer
 * (.dependency-cruiser.cjs, test/infra/function-bundles.test.ts).
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly logFailure: MailFailureLog,
  ) {
    this.transport = createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<MailOutcome> {
    try {
      await this.transport.sendMail({
        from: this.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      return 'sent';
    } catch (error) {
      this.logFailure({
        kind: message.about.kind,
        org_id: message.about.orgId,
        user_id: message.about.userId,
        error: error instanceof Error ? error.message : 'unknown',
      });
      return 'not_sent';
    }
  }

  close(): void {
    this.transport.close();
  }
}
