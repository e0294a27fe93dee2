import { LOGIN_THROTTLE } from '../../layers/core/domain/login-throttle';
import { apiFrom } from '../support/from-address';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, WebSession } from '../support/web-session';

const HOUR_MS = 3600 * 1000;

/**
 * Issue 20 item 1, P211: an email may have an account in several
 * organizations, and another organization's administrator can add one for any
 * address. Sign-in chooses the account before comparing any password, so no
 * answer depends on the password of an account that was not chosen, no
 * organization is named that the caller has not signed in to, and failed
 * guesses count against the account they were checked against.
 */
describe('Sign-in when an email has accounts in several organizations (P211)', () => {
  const clock = new TestClock();
  let service: TestService;
  let victim: TestUser;
  let attackerOrgId: string;
  let attacker: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    victim = await createTestUser(service, { role: 'readonly' });
    attackerOrgId = (await createTenant(service, { name: 'attacker' })).orgId;
    const attackerAdmin = await createTestUser(service, { orgId: attackerOrgId, role: 'admin' });
    attacker = await signedIn(service, attackerAdmin);
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(HOUR_MS));

  /** The probe's shadow: an invitation in the attacker's organization for the victim's address. */
  async function shadowWithPassword(password: string): Promise<string> {
    const invited = await attacker.request('/api/v1/users', {
      method: 'POST',
      body: { email: victim.email.toUpperCase(), name: 'Shadow', role: 'readonly' },
    });
    expect(invited.status).toBe(201);
    const accepted = await new WebSession(service.url).request('/api/v1/auth/invitations/accept', {
      method: 'POST',
      body: { token: json(invited).invitation.token, password },
    });
    expect(accepted.status).toBe(200);
    return json(invited).id;
  }

  async function retireShadow(id: string): Promise<void> {
    const renamed = await attacker.request(`/api/v1/users/${id}`, {
      method: 'PUT',
      body: { email: `retired-${id.toLowerCase()}@example.net` },
    });
    expect(renamed.status).toBe(200);
  }

  const signIn = (address: string, password: string, extra: Record<string, unknown> = {}) =>
    apiFrom(address, service.url, '/api/v1/auth/login', {
      method: 'POST',
      body: { email: victim.email, password, ...extra },
    });

  it('answers the probe as if the shadow did not exist, and never names the other organization', async () => {
    const guess = 'a guess at the victim password';
    const withoutShadow = await signIn('127.0.0.21', guess);
    const shadow = await shadowWithPassword(guess);
    const withShadow = await signIn('127.0.0.21', guess);
    const intoShadow = await signIn('127.0.0.21', guess, { org_id: attackerOrgId });
    await retireShadow(shadow);

    expect(withShadow.status).toBe(withoutShadow.status);
    expect(withShadow.status).toBe(401);
    const { request_id: _first, ...before } = json(withoutShadow).error ?? json(withoutShadow);
    const { request_id: _second, ...after } = json(withShadow).error ?? json(withShadow);
    expect(after).toEqual(before);
    expect(withShadow.text).not.toContain(victim.orgId);
    expect(intoShadow.status).toBe(200);
    expect(json(intoShadow).user.org_id).toBe(attackerOrgId);
    expect(intoShadow.text).not.toContain(victim.orgId);
  });

  it("answers a sign-in into the shadow the same whether or not its password is also the victim's", async () => {
    const sameAsVictim = await shadowWithPassword(victim.password);
    const whenSame = await signIn('127.0.0.25', victim.password, { org_id: attackerOrgId });
    await retireShadow(sameAsVictim);
    const otherGuess = 'a wrong guess at the password';
    const different = await shadowWithPassword(otherGuess);
    const whenDifferent = await signIn('127.0.0.25', otherGuess, { org_id: attackerOrgId });
    await retireShadow(different);

    for (const response of [whenSame, whenDifferent]) {
      expect(response.status).toBe(200);
      expect(json(response).user.org_id).toBe(attackerOrgId);
      expect(response.text).not.toContain(victim.orgId);
    }
  });

  it("never checks the shadow's password without org_id: the owner's older account is the one checked", async () => {
    const shadow = await shadowWithPassword('the shadow password, set by the attacker');

    const byShadowPassword = await signIn('127.0.0.22', 'the shadow password, set by the attacker');
    const byOwner = await signIn('127.0.0.22', victim.password);
    await retireShadow(shadow);

    expect(byShadowPassword.status).toBe(401);
    expect(byShadowPassword.text).not.toContain(victim.orgId);
    expect(byShadowPassword.text).not.toContain(attackerOrgId);
    expect(byOwner.status).toBe(200);
    expect(json(byOwner).user.org_id).toBe(victim.orgId);
  });

  it('counts every failed check against the account it was checked against, whatever the shadow matched', async () => {
    const shadowPassword = 'the shadow password, set by the attacker';
    const shadow = await shadowWithPassword(shadowPassword);
    const guesser = '127.0.0.23';

    for (let i = 0; i < LOGIN_THROTTLE.accountAddress.burst; i += 1) {
      expect((await signIn(guesser, `${shadowPassword} ${i}`)).status).toBe(401);
    }
    const ownerFromGuesser = await signIn(guesser, victim.password);
    const ownerFromHome = await signIn('127.0.0.24', victim.password);
    const shadowFromGuesser = await signIn(guesser, shadowPassword, { org_id: attackerOrgId });
    await retireShadow(shadow);

    expect(ownerFromGuesser.status).toBe(429);
    expect(json(ownerFromGuesser).error.details.reason).toBe('login_attempts');
    expect(ownerFromHome.status).toBe(200);
    // The shadow is another account: the victim's guesses never slowed it, and it refunds nothing of theirs.
    expect(shadowFromGuesser.status).toBe(200);
  });

  it("leaves the owner's sign-in untouched by another organization's accounts for their address", async () => {
    const shadow = await shadowWithPassword('yet another shadow password');

    const owner = await new WebSession(service.url).signIn(victim.email, victim.password);
    await retireShadow(shadow);

    expect(owner.status).toBe(200);
    expect(json(owner).user.id).toBe(victim.id);
  });
});
