import { Logger } from '@aws-lambda-powertools/logger';
import { UnsentMail } from '../../adapters/mail/unsent-mail';
import { parseCloudConfig } from '../../config';
import type { Dependencies } from '../../ports/dependencies.port';
import type { Mailer } from '../../ports/mailer.port';

/**
 * The identity's own name (`…:identity/example.com` or
 * `…:identity/no-reply@example.com`) gives the From address when
 * `SVC_MAIL_FROM` is unset: the address itself, or `no-reply@` the domain.
 */
function defaultFrom(identityArn: string): string {
  const identity = identityArn.slice(identityArn.indexOf(':identity/') + ':identity/'.length);
  return identity.includes('@') ? identity : `no-reply@${identity}`;
}

/**
 * Mail in the cloud. With the stack's SES identity, Amazon SES
 * (the client loaded at the first mail, as SQS's); without one, the
 * mail is logged by kind and ids, never its link (an invitation is still
 * shown to the administrator who made it).
 */
export function cloudMailer(): Pick<Dependencies, 'mailer'> {
  const config = parseCloudConfig('mail');
  const logger = new Logger({ serviceName: 'svc-mail' });
  const identityArn = config.SVC_SES_IDENTITY_ARN;
  if (!identityArn) {
    return {
      mailer: new UnsentMail((about) =>
        logger.info('mail not sent: no SES identity is configured (context sesIdentity)', {
          kind: about.kind,
          org_id: about.orgId,
          user_id: about.userId,
        }),
      ),
    };
  }
  const sender = { from: config.SVC_MAIL_FROM ?? defaultFrom(identityArn), identityArn };
  let connected: Promise<Mailer> | undefined;
  const connect = async () =>
    (await import('./ses-connection')).connectSesMailer(config.AWS_REGION, sender, (failure) =>
      logger.error('mail not sent: SES refused it', failure),
    );
  return {
    mailer: {
      async send(message) {
        connected ??= connect();
        return (await connected).send(message);
      },
    },
  };
}
