import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SesMailer } from '../../adapters/aws/ses-mailer';
import { traceAwsClient } from '../../observability/tracing';
import type { Mailer, MailFailureLog } from '../../ports/mailer.port';

/** The SES client and mailer behind cloud-mail.ts, in a module of their own so they load on first use. */
export function connectSesMailer(
  region: string,
  sender: { readonly from: string; readonly identityArn: string },
  logFailure: MailFailureLog,
): Mailer {
  return new SesMailer(traceAwsClient(new SESv2Client({ region })), sender, logFailure);
}
