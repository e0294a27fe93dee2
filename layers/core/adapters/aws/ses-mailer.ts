import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { Mailer, MailFailureLog, MailMessage, MailOutcome } from '../../ports/mailer.port';
import { sendOrLog } from '../mail/send-or-log';

/**
 * Mail through Amazon SES (API v2, `SendEmail` with a simple content
 * of text and HTML), from the deployment's verified identity. The stack
 * allows this function `ses:SendEmail` on that identity alone.
 */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly sender: {
      /** The From address (`Name <address>` allowed), within the identity. */
      readonly from: string;
      /** The identity's ARN, which SES authorizes the send against. */
      readonly identityArn: string;
    },
    private readonly logFailure: MailFailureLog,
  ) {}

  send(message: MailMessage): Promise<MailOutcome> {
    return sendOrLog(
      message,
      this.logFailure,
      () =>
        this.client.send(
          new SendEmailCommand({
            FromEmailAddress: this.sender.from,
            FromEmailAddressIdentityArn: this.sender.identityArn,
            Destination: { ToAddresses: [message.to] },
            Content: {
              Simple: {
                Subject: { Data: message.subject, Charset: 'UTF-8' },
                Body: {
                  Text: { Data: message.text, Charset: 'UTF-8' },
                  Html: { Data: message.html, Charset: 'UTF-8' },
                },
              },
            },
          }),
        ),
      // The SDK's error name (MessageRejected, …); its message may quote the address.
      (error) => error.name,
    );
  }
}
