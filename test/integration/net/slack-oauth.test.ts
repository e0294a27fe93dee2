import { createHash } from 'node:crypto';
import { providerFetch } from '../../../layers/core/adapters/connectors/oauth-http';
import { SlackOAuth } from '../../../layers/core/adapters/connectors/slack/slack-oauth';
import { webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import {
  ConnectionCallbackError,
  ConnectionLostError,
} from '../../../layers/core/domain/connector';
import { SlackEmulator } from '../../support/slack-emulator';
import { TestClock } from '../../support/test-clock';

const HOUR_MS = 3_600_000;

/**
 * Slack's OAuth v2 client against the loopback Slack over real HTTP (P159,
 * P163, P164): the code exchange with PKCE, single-use refresh tokens, a
 * refused refresh token as a lost connection, and revocation of a grant
 * whose access token already expired.
 */
describe('Slack OAuth v2 client (P159, P163, P164)', () => {
  const clock = new TestClock();
  let slack: SlackEmulator;
  let oauth: SlackOAuth;
  const redirectUri = 'http://127.0.0.1:9/api/oauth/callback';

  beforeAll(async () => {
    slack = await new SlackEmulator(clock).start();
    oauth = new SlackOAuth(providerFetch(webhookPolicy({ allowPrivateAddresses: true })), clock, {
      baseUrl: slack.origin,
    });
  });
  afterAll(() => slack.close());

  const app = () => ({ clientId: slack.clientId, clientSecret: slack.clientSecret });
  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  async function granted() {
    const url = oauth.authorizationUrl(app(), {
      state: 'state-1',
      codeChallenge: challenge,
      redirectUri,
    });
    const consent = await fetch(url, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';
    return oauth.exchangeCode(app(), { code, codeVerifier: verifier, redirectUri });
  }

  it('exchanges a code with its PKCE verifier and names the workspace', async () => {
    const tokens = await granted();

    expect(tokens).toMatchObject({
      access_token: expect.stringMatching(/^xoxe\.xoxb-/),
      refresh_token: expect.stringMatching(/^xoxe-1-/),
      site: { id: slack.teamId, url: slack.workspaceUrl },
    });
    expect(Date.parse(tokens.expires_at ?? '') - clock.now().getTime()).toBeGreaterThan(
      11 * HOUR_MS,
    );
  });

  it('refuses a wrong verifier or a used code at the callback', async () => {
    const url = oauth.authorizationUrl(app(), {
      state: 's',
      codeChallenge: challenge,
      redirectUri,
    });
    const consent = await fetch(url, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';

    await expect(
      oauth.exchangeCode(app(), { code, codeVerifier: 'w'.repeat(43), redirectUri }),
    ).rejects.toThrow(ConnectionCallbackError);
    await expect(
      oauth.exchangeCode(app(), { code, codeVerifier: verifier, redirectUri }),
    ).rejects.toThrow(/invalid_code/);
  });

  it('rotates: each refresh token works once; a used one is a lost connection', async () => {
    const tokens = await granted();
    const renewed = await oauth.refresh(app(), tokens);

    expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(oauth.refresh(app(), tokens)).rejects.toThrow(ConnectionLostError);
    await expect(oauth.refresh(app(), tokens)).rejects.toThrow(/invalid_refresh_token/);
  });

  it('revokes a grant whose access token expired by renewing it first', async () => {
    const tokens = await granted();
    clock.advance(13 * HOUR_MS);
    const before = slack.requests().length;

    expect(await oauth.revoke(app(), tokens)).toEqual({ revoked: true });
    const during = slack
      .requests()
      .slice(before)
      .map((request) => request.path);
    expect(during).toEqual(['/api/auth.revoke', '/api/oauth.v2.access', '/api/auth.revoke']);
    // The refresh token used to renew it is spent.
    await expect(oauth.refresh(app(), tokens)).rejects.toThrow(ConnectionLostError);
  });

  it('counts a token Slack already refuses (app uninstalled) as revoked', async () => {
    const tokens = await granted();
    slack.uninstall();

    expect(await oauth.revoke(app(), tokens)).toEqual({ revoked: true });
  });
});
