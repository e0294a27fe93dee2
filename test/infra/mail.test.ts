import type { CfnElement } from 'aws-cdk-lib';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import type { ServiceStack } from '../../lib/service-stack';
import { familiesThat } from './family-needs';

const MAIL_FAMILIES = familiesThat((needs) => needs.mail === true);

import { buildServiceStack, ownFunctions, templateOf } from './service-stack-fixture';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** What the template says of one function: its mail settings and every SES action it may take. */
function mailOf(stack: ServiceStack, resources: Record<string, Resource>, fn: ServiceFunction) {
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const variables = resources[idOf(fn.function)]?.Properties.Environment?.Variables ?? {};
  const policy = fn.role.node.tryFindChild('DefaultPolicy') as
    | { node: { defaultChild: unknown } }
    | undefined;
  const statements: Statement[] = policy
    ? (resources[idOf(policy)]?.Properties.PolicyDocument.Statement ?? [])
    : [];
  const ses = statements.filter((statement) =>
    [statement.Action].flat().some((action) => action.startsWith('ses:')),
  );
  return {
    identity: variables.SVC_SES_IDENTITY_ARN,
    from: variables.SVC_MAIL_FROM,
    ses: ses.map((statement) => ({
      actions: [statement.Action].flat(),
      resource: statement.Resource,
    })),
  };
}

const identityArn = (identity: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ses:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:identity/${identity}`,
    ],
  ],
});

describe('P265: mail through Amazon SES (context sesIdentity, mailFrom)', () => {
  it('lets only the families that mail send, from the identity alone, and tells them its ARN', () => {
    const built = buildServiceStack({
      environment: 'test',
      sesIdentity: 'example.com',
      mailFrom: 'Agent Query Service <no-reply@example.com>',
    });
    const resources = templateOf(built).toJSON().Resources as Record<string, Resource>;

    for (const [name, fn] of ownFunctions(built.stack)) {
      const mails = MAIL_FAMILIES.includes(name);
      expect({ name, ...mailOf(built.stack, resources, fn) }).toEqual({
        name,
        identity: mails ? identityArn('example.com') : undefined,
        from: mails ? 'Agent Query Service <no-reply@example.com>' : undefined,
        ses: mails ? [{ actions: ['ses:SendEmail'], resource: identityArn('example.com') }] : [],
      });
    }
    expect([...MAIL_FAMILIES].sort()).toEqual(['auth', 'users']);
  });

  it('grants nothing and sets nothing without an identity (mail is logged, never sent)', () => {
    const built = buildServiceStack({ environment: 'test' });
    const resources = templateOf(built).toJSON().Resources as Record<string, Resource>;

    for (const [name, fn] of ownFunctions(built.stack)) {
      expect({ name, ...mailOf(built.stack, resources, fn) }).toEqual({
        name,
        identity: undefined,
        from: undefined,
        ses: [],
      });
    }
  });

  it('takes an address as the identity, which is then the From address', () => {
    const built = buildServiceStack({ environment: 'test', sesIdentity: 'team@example.com' });
    const resources = templateOf(built).toJSON().Resources as Record<string, Resource>;
    const auth = built.stack.http.functions.get('auth');
    if (!auth) throw new Error('no auth function');

    expect(mailOf(built.stack, resources, auth)).toEqual({
      identity: identityArn('team@example.com'),
      from: undefined,
      ses: [{ actions: ['ses:SendEmail'], resource: identityArn('team@example.com') }],
    });
  });

  it.each([
    [{ sesIdentity: 'Not A Domain' }, /"sesIdentity" must be an SES identity/],
    [{ mailFrom: 'no-reply@example.com' }, /"mailFrom" needs "sesIdentity"/],
    [
      { sesIdentity: 'example.com', mailFrom: 'no-reply@elsewhere.org' },
      /"mailFrom" must be an address of the SES identity "example.com"/,
    ],
    [
      { sesIdentity: 'team@example.com', mailFrom: 'other@example.com' },
      /"mailFrom" must be an address of the SES identity/,
    ],
    [{ sesIdentity: 'example.com', mailFrom: 'Name <a@b.example.com>\r\nBcc: x@y.z' }, /mailFrom/],
  ])('refuses %j at synth, naming the key', (context, message) => {
    expect(() => buildServiceStack({ environment: 'test', ...context })).toThrow(message);
  });
});
