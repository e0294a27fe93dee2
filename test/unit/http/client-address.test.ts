import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  clientAddressOf,
  sameSecret,
  viewerAddressOf,
} from '../../../layers/core/http/client-address';

const SECRET = 'k3Jq9ZpR7vTnW2xYb5cLm8dF4gHs6aEu1oNiQtVwXyZaBcDeFgHiJkLmNoPqRsTu';
const EDGE = '130.176.96.72';
const VIEWER = '203.0.113.7';

const eventFrom = (sourceIp: string, headers: Record<string, string> = {}) =>
  ({ headers, requestContext: { identity: { sourceIp } } }) as unknown as APIGatewayProxyEvent;

describe('Function: clientAddressOf (P242: the address a request is judged by)', () => {
  const originSecret = jest.fn(async () => SECRET);
  beforeEach(() => originSecret.mockClear());

  it('takes the viewer address when the origin secret is right', async () => {
    const event = eventFrom(EDGE, {
      'x-svc-origin-verify': SECRET,
      'x-svc-viewer-address': VIEWER,
    });

    await expect(clientAddressOf(event, originSecret)).resolves.toBe(VIEWER);
  });

  it('reads the headers whatever their case, as API Gateway passes them', async () => {
    const event = eventFrom(EDGE, {
      'X-Svc-Origin-Verify': SECRET,
      'X-SVC-VIEWER-ADDRESS': '2001:db8::7',
    });

    await expect(clientAddressOf(event, originSecret)).resolves.toBe('2001:db8::7');
  });

  it('keeps the socket address when the secret is wrong, empty or a prefix of the right one', async () => {
    for (const sent of ['not-the-secret', '', SECRET.slice(0, -1), `${SECRET}x`]) {
      const event = eventFrom(EDGE, {
        'x-svc-origin-verify': sent,
        'x-svc-viewer-address': VIEWER,
      });

      await expect(clientAddressOf(event, originSecret)).resolves.toBe(EDGE);
    }
  });

  it('never believes a viewer address without the secret, and does not read the secret for it', async () => {
    const event = eventFrom(EDGE, {
      'x-svc-viewer-address': VIEWER,
      'cloudfront-viewer-address': `${VIEWER}:52325`,
      'x-forwarded-for': VIEWER,
    });

    await expect(clientAddressOf(event, originSecret)).resolves.toBe(EDGE);
    expect(originSecret).not.toHaveBeenCalled();
  });

  it('trusts no header at all where no secret is configured (one machine without a proxy)', async () => {
    const event = eventFrom('127.0.0.1', {
      'x-svc-origin-verify': SECRET,
      'x-svc-viewer-address': VIEWER,
    });

    await expect(clientAddressOf(event, undefined)).resolves.toBe('127.0.0.1');
  });

  it('keeps the socket address when the right secret comes with no readable viewer address', async () => {
    for (const viewer of [undefined, '', 'not-an-address', '203.0.113.7, 10.0.0.1']) {
      const headers: Record<string, string> = { 'x-svc-origin-verify': SECRET };
      if (viewer !== undefined) headers['x-svc-viewer-address'] = viewer;

      await expect(clientAddressOf(eventFrom(EDGE, headers), originSecret)).resolves.toBe(EDGE);
    }
  });

  it('lets a secret that cannot be read fail the request rather than guess', async () => {
    const event = eventFrom(EDGE, {
      'x-svc-origin-verify': SECRET,
      'x-svc-viewer-address': VIEWER,
    });
    const unreadable = async (): Promise<string> => {
      throw new Error('Secrets Manager is unavailable');
    };

    await expect(clientAddressOf(event, unreadable)).rejects.toThrow('unavailable');
  });
});

describe('Function: sameSecret (constant-time comparison)', () => {
  it('is true for the same value only', () => {
    expect(sameSecret(SECRET, SECRET)).toBe(true);
    expect(sameSecret(SECRET.toLowerCase(), SECRET)).toBe(false);
    expect(sameSecret('short', SECRET)).toBe(false);
  });

  it('never matches an empty expected value', () => {
    expect(sameSecret('', '')).toBe(false);
  });
});

describe('Function: viewerAddressOf (what CloudFront writes)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8::7', '2001:db8::7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    // CloudFront-Viewer-Address: IPv4 with the source port, IPv6 in full with it.
    ['203.0.113.7:46532', '203.0.113.7'],
    ['2001:0db8:0000:0000:0000:0000:0000:0007:52325', '2001:0db8:0000:0000:0000:0000:0000:0007'],
    ['[2001:db8::7]:52325', '2001:db8::7'],
  ])('reads %p as %p', (value, address) => {
    expect(viewerAddressOf(value)).toBe(address);
  });

  it.each([
    undefined,
    '',
    'localhost',
    '203.0.113.7:port',
    '203.0.113.7, 10.0.0.1',
    '[203.0.113.7]:80',
    '999.1.1.1',
  ])('refuses %p', (value) => {
    expect(viewerAddressOf(value)).toBeUndefined();
  });
});
