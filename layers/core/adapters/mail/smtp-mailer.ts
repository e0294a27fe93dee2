import { createTransport, type Transporter } from 'nodemailer';
import type { Mailer, MailFailureLog, MailMessage, MailOutcome } from '../../ports/mailer.port';
import { sendOrLog } from './send-or-log';

/**
 * Mail through an SMTP server (`SVC_SMTP_URL`, e.g.
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

  send(message: MailMessage): Promise<MailOutcome> {
    return sendOrLog(
      message,
      this.logFailure,
      () =>
        this.transport.sendMail({
          from: this.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        }),
      // nodemailer's code and the server's reply code; its message may quote the address.
      (error) => {
        const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
        return [error.name, code, responseCode].filter((part) => part !== undefined).join(' ');
      },
    );
  }

  close(): void {
    this.transport.close();
  }
}
