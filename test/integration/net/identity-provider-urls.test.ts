import {
  checkFetchedProviderUrl,
  checkIdentityProviderUrl,
} from '../../../layers/core/adapters/net/identity-provider-urls';
import { type Resolver, webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';

/** A DNS of the test's own: names inside the company resolve privately, the rest publicly. */
const resolve: Resolver = async (hostname) => {
  if (hostname.endsWith('.corp.example')) return ['10.20.30.40'];
  if (hostname === 'rebound.example') return ['93.184.216.34', '127.0.0.1'];
  return ['93.184.216.34'];
};
const cloud = webhookPolicy({ resolve });
const local = webhookPolicy({ allowPrivateAddresses: true, resolve });

/**
 * P220: the addresses of an organization's identity provider. The SAML SSO
 * URL and the OIDC issuer are checked as written (https, no user info, http
 * only to this machine where private addresses are allowed); what a
 * discovery document names is also resolved and held to D35.
 */
describe('Function: checkIdentityProviderUrl (P220)', () => {
  it.each([
    'https://idp.example.com/sso',
    'https://10.20.30.40/sso',
    'https://adfs.corp.example/adfs/ls',
  ])('accepts %s: a browser follows it, on the company network if it must', (url) => {
    expect(checkIdentityProviderUrl(url, cloud)).toEqual({ ok: true });
  });

  it.each([
    ['http://idp.example.com/sso', /must use https/],
    ['http://127.0.0.1:8080/sso', /must use https/],
    ['https://user:secret@idp.example.com/sso', /credentials/],
    ['https://user@idp.example.com/sso', /credentials/],
    ['javascript:alert(1)', /scheme javascript/],
    ['not a url', /not a valid URL/],
  ])('refuses %s', (url, reason) => {
    const check = checkIdentityProviderUrl(url, cloud);

    expect(check.ok).toBe(false);
    expect(check.ok || check.reason).toMatch(reason);
  });

  it('takes http to this machine only where private addresses are allowed', () => {
    const loopback = ['http://127.0.0.1:8080/sso', 'http://[::1]:8080/sso', 'http://localhost/sso'];
    const elsewhere = ['http://10.0.0.7/sso', 'http://idp.example.com/sso'];

    expect(loopback.map((url) => checkIdentityProviderUrl(url, local).ok)).toEqual([
      true,
      true,
      true,
    ]);
    expect(elsewhere.map((url) => checkIdentityProviderUrl(url, local).ok)).toEqual([false, false]);
  });
});

describe('Function: checkFetchedProviderUrl (P220, D35)', () => {
  it('accepts an https address whose every resolved address is public', async () => {
    await expect(
      checkFetchedProviderUrl('https://login.example.com/token', cloud),
    ).resolves.toEqual({ ok: true });
  });

  it.each([
    ['https://sso.corp.example/token', /resolves to 10\.20\.30\.40/],
    ['https://rebound.example/jwks', /resolves to 127\.0\.0\.1/],
    ['https://169.254.169.254/latest/meta-data/', /not public/],
    ['https://[::1]/authorize', /not public/],
    ['http://login.example.com/token', /must use https/],
  ])('refuses %s in the cloud', async (url, reason) => {
    const check = await checkFetchedProviderUrl(url, cloud);

    expect(check.ok).toBe(false);
    expect(check.ok || check.reason).toMatch(reason);
  });

  it('lets private addresses through only where they are allowed (local runs, tests)', async () => {
    const checks = await Promise.all(
      ['https://sso.corp.example/token', 'http://127.0.0.1:9000/jwks'].map((url) =>
        checkFetchedProviderUrl(url, local),
      ),
    );

    expect(checks).toEqual([{ ok: true }, { ok: true }]);
  });
});
