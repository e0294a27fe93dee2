import { readFileSync } from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { HttpWebhookTransport } from '../../../layers/core/adapters/net/http-webhook-transport';
import { webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import { generateWebhookSecret } from '../../../layers/core/domain/webhook-signature';
import { signedDelivery, verificationCases } from './webhook-verification-cases';

const MARKER = '<!-- tested: test/unit/lib/webhooks-doc.test.ts runs this block as written -->';

/** The ```js blocks that follow each marker in docs/webhooks.md, verbatim. */
function testedBlocks(): string[] {
  const markdown = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'webhooks.md'), 'utf8');
  const blocks: string[] = [];
  for (let at = markdown.indexOf(MARKER); at >= 0; at = markdown.indexOf(MARKER, at + 1)) {
    const open = markdown.indexOf('```js\n', at);
    const close = markdown.indexOf('\n```\n', open);
    blocks.push(markdown.slice(open + '```js\n'.length, close));
  }
  return blocks;
}

type VerifyWebhook = (
  rawBody: Buffer,
  headers: Record<string, string>,
  secret: string,
  nowMs?: number,
) => { ok: boolean; reason?: string };

describe('docs/webhooks.md: the documented Node.js snippets work as written', () => {
  const [verifyBlock, receiverBlock] = testedBlocks();

  it('has the two tested blocks', () => {
    expect(verifyBlock).toContain('function verifyWebhook(');
    expect(receiverBlock).toContain('http.createServer(');
  });

  describe('verifyWebhook', () => {
    const verifyWebhook = runInNewContext(`${verifyBlock}\n;verifyWebhook`, {
      require,
      Buffer,
    }) as VerifyWebhook;

    it.each(verificationCases().map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const result = verifyWebhook(
        Buffer.from(c.body, 'utf8'),
        c.headers,
        c.secret,
        c.now.getTime(),
      );
      expect(result.ok).toBe(c.valid);
      if (!c.valid) expect(typeof result.reason).toBe('string');
    });
  });

  it('the receiver answers the service transport 200 once per event, and 400 to forgeries and replays', async () => {
    // Prepare: both blocks, run as one script with a secret and a free port.
    const secret = generateWebhookSecret();
    const handled: unknown[][] = [];
    const server = runInNewContext(`${verifyBlock}\n${receiverBlock}\n;server`, {
      require,
      Buffer,
      process: { env: { WEBHOOK_SECRET: secret, PORT: '0' } },
      console: { log: (...args: unknown[]) => handled.push(args) },
    }) as http.Server;
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const transport = new HttpWebhookTransport(webhookPolicy({ allowPrivateAddresses: true }));
    const send = (delivery: { body: string; headers: Record<string, string> }) =>
      transport.post({ url, body: delivery.body, headers: delivery.headers, timeoutMs: 5_000 });

    try {
      // Act
      const genuine = signedDelivery({ current: secret, previous: null }, { at: new Date() });
      const first = await send(genuine);
      const again = await send(genuine);
      const forged = await send({ ...genuine, body: genuine.body.replace('bot', 'bat') });
      const replayed = await send(
        signedDelivery({ current: secret, previous: null }, { at: new Date(Date.now() - 600_000) }),
      );

      // Assess
      expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
      expect([forged.statusCode, replayed.statusCode]).toEqual([400, 400]);
      expect(handled).toEqual([
        [
          'agent.created',
          'evt_01m7y5s0hv4jy55e4cnnc305bc',
          expect.objectContaining({ name: expect.any(String) }),
        ],
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
