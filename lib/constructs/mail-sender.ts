import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

export interface MailSenderProps {
  /** The SES identity mail is sent from: a domain or an address verified in SES in the stack's region. */
  readonly sesIdentity: string;
  /** The From address. @default the identity when it is an address, else `no-reply@` the domain */
  readonly from?: string | undefined;
}

/**
 * Mail through Amazon SES (invitations, password resets). The
 * operator verifies the identity in SES (and leaves the sandbox); this
 * construct only names it. The functions that mail get its ARN and the
 * From address, and may `ses:SendEmail` for that identity and nothing else.
 */
export class MailSender extends Construct {
  readonly identityArn: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: MailSenderProps,
  ) {
    super(scope, id);
    this.identityArn = Stack.of(this).formatArn({
      service: 'ses',
      resource: 'identity',
      resourceName: props.sesIdentity,
    });
  }

  connect(target: ServiceFunction): void {
    target.function.addEnvironment('SVC_SES_IDENTITY_ARN', this.identityArn);
    if (this.props.from) target.function.addEnvironment('SVC_MAIL_FROM', this.props.from);
    target.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.identityArn],
      }),
    );
  }
}
