import { connect, type Socket } from 'node:net';
import { type Resolver, webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import {
  AddressNotAllowedError,
  checkLiteralHost,
  checkOutboundUrl,
  guardedLookup,
  parseOutboundUrl,
} from '../../../layers/core/adapters/net/url-guard';
import { type LocalReceiver, startHttpReceiver } from './local-receivers';

/** A resolver for IP-literal URLs, which must never be resolved. */
const mustNotResolve: Resolver = (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};
const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;

/** Connects through the guarded lookup; resolves with the socket's error, or `null` once connected. */
function connectGuarded(
  host: string,
  port: number,
  lookup: ReturnType<typeof guardedLookup>,
  autoSelectFamily = true,
): Promise<Error | null> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host, port, lookup, autoSelectFamily });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve(error);
    });
  });
}

describe('Function: checkOutboundUrl', () => {
  // D35: the bypass corpus. WHATWG URL parsing turns every spelling into the address it means.
  it.each([
    ['https://127.1/', '127.0.0.1', 'loopback'],
    ['https://0x7f.1/', '127.0.0.1', 'loopback'],
    ['https://017700000001/', '127.0.0.1', 'loopback'],
    ['https://2130706433/', '127.0.0.1', 'loopback'],
    ['https://0177.0.0.1/', '127.0.0.1', 'loopback'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1', 'ipv4Mapped'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'ipv4Mapped'],
    ['https://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe', 'ipv4Mapped'],
    ['https://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1', '6to4:cloudMetadata'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1', 'nat64:loopback'],
    ['https://100.64.0.1/', '100.64.0.1', 'carrierGradeNat'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254', 'cloudMetadata'],
    ['https://[::1]/', '::1', 'loopback'],
    ['https://[::]/', '::', 'unspecified'],
    ['https://0.0.0.0/', '0.0.0.0', 'unspecified'],
    ['https://0/', '0.0.0.0', 'unspecified'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254', 'cloudMetadata'],
    ['https://10.0.0.1:8443/hook', '10.0.0.1', 'private'],
    ['https://192.168.0.1/', '192.168.0.1', 'private'],
    ['https://[fe80::1]/', 'fe80::1', 'linkLocal'],
    ['https://224.0.0.1/', '224.0.0.1', 'multicast'],
  ])('refuses %s as %s (%s)', async (raw, address, range) => {
    const check = await checkOutboundUrl(raw, webhookPolicy({ resolve: mustNotResolve }));

    expect(check).toEqual({ ok: false, reason: `address ${address} is not public (${range})` });
  });

  it('refuses a name that resolves to loopback', async () => {
    const policy = webhookPolicy({ resolve: resolvesTo('127.0.0.1') });

    const check = await checkOutboundUrl('https://evil.example.test/hook', policy);

    expect(check).toEqual({
      ok: false,
      reason: 'host evil.example.test resolves to 127.0.0.1, which is not public (loopback)',
    });
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    const policy = webhookPolicy({ resolve: resolvesTo('93.184.216.34', '::1') });

    const check = await checkOutboundUrl('https://mixed.example.test/', policy);

    expect(check).toMatchObject({ ok: false, reason: expect.stringContaining('::1') });
  });

  it('refuses localhost as the system resolves it', async () => {
    const check = await checkOutboundUrl('https://localhost:8443/hook', webhookPolicy());

    expect(check.ok).toBe(false);
    expect(check).toMatchObject({
      reason: expect.stringMatching(
        /^host localhost resolves to (127\.0\.0\.1|::1), which is not public \(loopback\)$/,
      ),
    });
  });

  it('accepts a name that resolves to public addresses only, and reports them', async () => {
    const policy = webhookPolicy({
      resolve: resolvesTo('93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'),
    });

    const check = await checkOutboundUrl('https://hooks.example.test:8443/in?x=1', policy);

    expect(check).toEqual({
      ok: true,
      url: new URL('https://hooks.example.test:8443/in?x=1'),
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
  });

  it('accepts a public IP literal without a DNS lookup', async () => {
    const check = await checkOutboundUrl(
      'https://93.184.216.34/hook',
      webhookPolicy({ resolve: mustNotResolve }),
    );

    expect(check).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
  });

  it.each([
    ['http://hooks.example.test/', 'scheme http is not allowed (allowed: https)'],
    ['ftp://hooks.example.test/', 'scheme ftp is not allowed (allowed: https)'],
    ['file:///etc/passwd', 'scheme file is not allowed (allowed: https)'],
    ['gopher://127.0.0.1:6379/_INFO', 'scheme gopher is not allowed (allowed: https)'],
    ['javascript:alert(1)', 'scheme javascript is not allowed (allowed: https)'],
    ['not a url', 'not a valid URL'],
    ['', 'not a valid URL'],
    ['https://', 'not a valid URL'],
  ])('refuses %j', async (raw, reason) => {
    const check = await checkOutboundUrl(raw, webhookPolicy({ resolve: mustNotResolve }));

    expect(check).toEqual({ ok: false, reason });
  });

  it('refuses credentials in the URL without repeating them', async () => {
    const check = await checkOutboundUrl(
      'https://user:s3cret@hooks.example.test/',
      webhookPolicy({ resolve: resolvesTo('93.184.216.34') }),
    );

    expect(check).toEqual({ ok: false, reason: 'URLs with credentials are not allowed' });
  });

  it('refuses a name that does not resolve, with the resolver code', async () => {
    const policy = webhookPolicy({
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
      },
    });

    const check = await checkOutboundUrl('https://nowhere.test/', policy);

    expect(check).toEqual({ ok: false, reason: 'host nowhere.test does not resolve (ENOTFOUND)' });
  });

  it('treats a resolver that throws as a name that does not resolve', async () => {
    const check = await checkOutboundUrl(
      'https://broken.test/',
      webhookPolicy({ resolve: mustNotResolve }),
    );

    expect(check).toEqual({ ok: false, reason: 'host broken.test does not resolve' });
  });

  it('refuses a name with no addresses', async () => {
    const check = await checkOutboundUrl(
      'https://empty.test/',
      webhookPolicy({ resolve: resolvesTo() }),
    );

    expect(check).toEqual({ ok: false, reason: 'host empty.test does not resolve' });
  });

  it('gives up on DNS that does not answer in time', async () => {
    const policy = webhookPolicy({ resolve: () => new Promise(() => undefined) });

    const check = await checkOutboundUrl('https://slow.test/', policy, 50);

    expect(check).toEqual({ ok: false, reason: 'host slow.test did not resolve within 50 ms' });
  });

  describe('with private addresses allowed (SVC_ALLOW_PRIVATE_URLS)', () => {
    it('accepts loopback, private and http URLs', async () => {
      const policy = webhookPolicy({
        allowPrivateAddresses: true,
        resolve: resolvesTo('10.1.2.3'),
      });

      await expect(checkOutboundUrl('https://127.0.0.1:8443/', policy)).resolves.toMatchObject({
        ok: true,
      });
      await expect(checkOutboundUrl('http://localhost:3000/hook', policy)).resolves.toMatchObject({
        ok: true,
      });
    });

    it('still refuses a resolver answer that is not an IP address', async () => {
      const policy = webhookPolicy({
        allowPrivateAddresses: true,
        resolve: resolvesTo('127.1'),
      });

      const check = await checkOutboundUrl('https://odd.test/', policy);

      expect(check).toEqual({
        ok: false,
        reason: 'host odd.test resolves to 127.1, which is not public (invalid)',
      });
    });

    it('still refuses other schemes', () => {
      expect(
        parseOutboundUrl('ftp://127.0.0.1/', webhookPolicy({ allowPrivateAddresses: true })),
      ).toEqual({ ok: false, reason: 'scheme ftp is not allowed (allowed: https, http)' });
    });
  });
});

describe('Function: checkLiteralHost', () => {
  it('refuses a non-public IP literal and ignores names', () => {
    const policy = webhookPolicy();

    expect(checkLiteralHost('169.254.169.254', policy)).toBeInstanceOf(AddressNotAllowedError);
    expect(checkLiteralHost('93.184.216.34', policy)).toBeUndefined();
    expect(checkLiteralHost('hooks.example.test', policy)).toBeUndefined();
  });
});

describe('Function: guardedLookup', () => {
  let receiver: LocalReceiver;

  beforeAll(async () => {
    receiver = await startHttpReceiver((_request, res) => res.end());
  });
  afterAll(() => receiver.close());

  it('refuses to connect to a name that resolves to loopback', async () => {
    const lookup = guardedLookup(webhookPolicy({ resolve: resolvesTo('127.0.0.1') }));
    const before = receiver.connections();

    const error = await connectGuarded('evil.example.test', receiver.port, lookup);

    expect(error).toBeInstanceOf(AddressNotAllowedError);
    expect(error).toMatchObject({ address: '127.0.0.1', range: 'loopback' });
    expect(receiver.connections()).toBe(before);
  });

  it('refuses at connect time a name that rebinds to loopback after the URL check', async () => {
    // D35: public when the URL is checked, loopback when the socket connects.
    let lookups = 0;
    const policy = webhookPolicy({
      resolve: async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    });
    const before = receiver.connections();

    const check = await checkOutboundUrl(`https://rebind.example.test:${receiver.port}/`, policy);
    const error = await connectGuarded('rebind.example.test', receiver.port, guardedLookup(policy));

    expect(check.ok).toBe(true);
    expect(error).toBeInstanceOf(AddressNotAllowedError);
    expect(error?.message).toBe('address 127.0.0.1 is not public (loopback)');
    expect(receiver.connections()).toBe(before);
  });

  it.each([true, false])(
    'connects to loopback when private addresses are allowed (autoSelectFamily %s)',
    async (autoSelectFamily) => {
      const lookup = guardedLookup(
        webhookPolicy({ allowPrivateAddresses: true, resolve: resolvesTo('127.0.0.1') }),
      );
      const before = receiver.connections();

      const error = await connectGuarded('local.test', receiver.port, lookup, autoSelectFamily);

      expect(error).toBeNull();
      expect(receiver.connections()).toBe(before + 1);
    },
  );

  it('answers with one address or all of them, filtered by family', async () => {
    const lookup = guardedLookup(
      webhookPolicy({ resolve: resolvesTo('93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946') }),
    );
    const ask = (options: { family?: number; all?: boolean }) =>
      new Promise<unknown[]>((resolve) =>
        lookup('hooks.example.test', options, (...args) => resolve(args)),
      );

    await expect(ask({ all: true })).resolves.toEqual([
      null,
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    ]);
    await expect(ask({ family: 6 })).resolves.toEqual([
      null,
      '2606:2800:220:1:248:1893:25c8:1946',
      6,
    ]);
    await expect(ask({})).resolves.toEqual([null, '93.184.216.34', 4]);
  });

  it('reports ENOTFOUND when no address of the wanted family exists', async () => {
    const lookup = guardedLookup(webhookPolicy({ resolve: resolvesTo('93.184.216.34') }));

    const [error] = await new Promise<unknown[]>((resolve) =>
      lookup('hooks.example.test', { family: 6 }, (...args) => resolve(args)),
    );

    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});
