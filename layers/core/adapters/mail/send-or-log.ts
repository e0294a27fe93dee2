import type { MailFailureLog, MailMessage, MailOutcome } from '../../ports/mailer.port';

/**
 * A mailer never fails the request that mails: a refused or failed
 * send is logged (the kind and the ids, never the message or its link) and
 * reported as `not_sent`, so the answer can say so (an invitation's link is
 * still shown to the administrator).
 */
export async function sendOrLog(
  message: MailMessage,
  logFailure: MailFailureLog,
  send: () => Promise<unknown>,
  describe: (error: Error) => string,
): Promise<MailOutcome> {
  try {
    await send();
    return 'sent';
  } catch (error) {
    logFailure({
      kind: message.about.kind,
      org_id: message.about.orgId,
      user_id: message.about.userId,
      error: error instanceof Error ? describe(error) : 'unknown',
    });
    return 'not_sent';
  }
}
