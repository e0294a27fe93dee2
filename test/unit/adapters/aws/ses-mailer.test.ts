import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SesMailer } from '../../../../layers/core/adapters/aws/ses-mailer';
import { passwordResetMail } from '../../../../layers/core/use-cases/mail/mail-messages';

const IDENTITY_ARN = 'arn:aws:ses:eu-west-1:123456789012:identity/example.com';

/**
 * SES is AWS-only, so the real SESv2 client talks to a loopback stand-in
 * of its REST API (`POST /v2/email/outbound-emails`), which records what
 * arrives and answers as SES does.
 */
describe('Class: SesMailer (P265)', () => {
  let server: Server;
  let client: SESv2Client;
  const received: Array<{ path: string; body: any }> = [];
  let refuse = false;

  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => resolve(body));
    });

  beforeAll(async () => {
    server = createServer(async (request, response) => {
      received.push({ path: request.url ?? '', body: JSON.parse(await read(request)) });
      if (refuse) {
        response.writeHead(400, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'MessageRejected',
        });
        response.end(JSON.stringify({ message: 'Email address is not verified.' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ MessageId: 'msg-1' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new SESv2Client({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'example-secret' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    refuse = false;
  });

  const message = passwordResetMail({
    to: 'ada@example.com',
    organizationName: 'Acme',
    orgId: 'org_1',
    userId: 'usr_1',
    link: 'https://console.example.com/password-reset#token=svcpwr_secret',
    expiresAt: '2026-01-31T12:00:00.000Z',
  });

  it('sends text and HTML from the identity, authorized against its ARN', async () => {
    const failures: unknown[] = [];
    const mailer = new SesMailer(
      client,
      { from: 'Acme <no-reply@example.com>', identityArn: IDENTITY_ARN },
      (failure) => failures.push(failure),
    );

    const outcome = await mailer.send(message);

    expect(outcome).toBe('sent');
    expect(failures).toEqual([]);
    expect(received).toEqual([
      {
        path: '/v2/email/outbound-emails',
        body: {
          FromEmailAddress: 'Acme <no-reply@example.com>',
          FromEmailAddressIdentityArn: IDENTITY_ARN,
          Destination: { ToAddresses: ['ada@example.com'] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: {
                Text: { Data: message.text, Charset: 'UTF-8' },
                Html: { Data: message.html, Charset: 'UTF-8' },
              },
            },
          },
        },
      },
    ]);
  });

  it('answers not_sent when SES refuses, logging the ids and the reason, never the link', async () => {
    refuse = true;
    const failures: unknown[] = [];
    const mailer = new SesMailer(
      client,
      { from: 'no-reply@example.com', identityArn: IDENTITY_ARN },
      (failure) => failures.push(failure),
    );

    const outcome = await mailer.send(message);

    expect(outcome).toBe('not_sent');
    expect(failures).toEqual([
      { kind: 'password_reset', org_id: 'org_1', user_id: 'usr_1', error: 'MessageRejected' },
    ]);
    expect(JSON.stringify(failures)).not.toContain('svcpwr_');
  });
});
