import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { SmtpInbox } from '../support/smtp-inbox';
import { TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

const NEW_PASSWORD = 'a freshly reset passphrase';
/** Long enough for every sign-in and reset bucket to refill (P212: 30 at 6 a minute, 10 at one per 5). */
const REFILL_ALL_THROTTLES_MS = 60 * 60_000;

/**
 * Issue 22 item 9 over HTTP, against a real SMTP server on loopback
 * (`SVC_SMTP_URL`): invitations and password resets are mailed (P264,
 * P265), a reset link works once within the hour and ends the user's other
 * sessions (P266), and asking says nothing about who has an account (P267).
 */
describe('Mail: invitations and password resets (P264-P268)', () => {
  const clock = new TestClock();
  let inbox: SmtpInbox;
  let service: TestService;
  let adminBrowser: WebSession;

  beforeAll(async () => {
    inbox = await SmtpInbox.start();
    service = await startTestService({ clock, env: { SVC_SMTP_URL: inbox.url } });
    adminBrowser = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(async () => {
    await service.end();
    await inbox.end();
  });
  beforeEach(() => clock.advance(REFILL_ALL_THROTTLES_MS));

  const askForReset = (body: Record<string, unknown>) =>
    api(service.url, '/api/v1/auth/password-reset', { method: 'POST', body });
  const confirmReset = (token: string, newPassword = NEW_PASSWORD) =>
    api(service.url, '/api/v1/auth/password-reset/confirm', {
      method: 'POST',
      body: { token, new_password: newPassword },
    });
  const tokenOf = (link: string | null) =>
    new URLSearchParams(new URL(link ?? 'http://x/').hash.slice(1)).get('token') ?? '';
  const signIn = (email: string, password: string) =>
    api(service.url, '/api/v1/auth/login', { method: 'POST', body: { email, password } });
  const answerOf = (response: ApiResponse) => ({ status: response.status, body: response.body });

  describe('password reset', () => {
    it('mails a link that sets a new password once, ending every other session', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const laptop = await signedIn(service, user);

      const asked = await askForReset({ email: user.email.toUpperCase() });
      const mail = await inbox.nextMailFor(user.email, 0);
      const confirmed = await confirmReset(tokenOf(mail.link));
      const fromLaptop = await laptop.request('/api/v1/auth/me');
      const oldPassword = await signIn(user.email, user.password);
      const newPassword = await signIn(user.email, NEW_PASSWORD);
      const again = await confirmReset(tokenOf(mail.link), 'yet another passphrase');

      expect(asked.status).toBe(202);
      expect(json(asked).message).toMatch(/^If an account with this email/);
      expect(mail.subject).toBe('Reset your password for Local organization');
      expect(mail.from).toContain('no-reply@localhost');
      expect(mail.link).toMatch(
        new RegExp(`^${service.url}/password-reset#token=svcpwr_[A-Za-z0-9_-]{43}$`),
      );
      expect(mail.text).toContain('Local organization');
      expect(mail.html).toContain(`href="${mail.link}"`);
      // The link is the only secret: no password, no key, no other token.
      expect(`${mail.text}${mail.html}`).not.toContain(user.password);
      expect(`${mail.text}${mail.html}`).not.toMatch(/svc(inv|live|test)_/);
      expect(confirmed.status).toBe(204);
      expectNestedError(fromLaptop, 401, 'unauthorized');
      expectNestedError(oldPassword, 401, 'unauthorized');
      expect(newPassword.status).toBe(200);
      expect(fieldPaths(expectNestedError(again, 400, 'invalid_request'))).toEqual(['token']);
    });

    it('stops a link working after an hour', async () => {
      const user = await createTestUser(service, { role: 'readonly' });

      await askForReset({ email: user.email });
      const mail = await inbox.nextMailFor(user.email, 0);
      clock.advance(60 * 60_000 + 1000);
      const late = await confirmReset(tokenOf(mail.link));
      const stillOld = await signIn(user.email, user.password);

      expect(mail.text).toContain('(one hour)');
      expect(fieldPaths(expectNestedError(late, 400, 'invalid_request'))).toEqual(['token']);
      expect(stillOld.status).toBe(200);
    });

    it('ends the other links once the password changes', async () => {
      const user = await createTestUser(service, { role: 'readonly' });

      await askForReset({ email: user.email });
      const first = await inbox.nextMailFor(user.email, 0);
      await askForReset({ email: user.email });
      const second = await inbox.nextMailFor(user.email, 1);
      const used = await confirmReset(tokenOf(second.link));
      const earlier = await confirmReset(tokenOf(first.link), 'a passphrase from the older link');

      expect(first.link).not.toBe(second.link);
      expect(used.status).toBe(204);
      expect(fieldPaths(expectNestedError(earlier, 400, 'invalid_request'))).toEqual(['token']);
    });

    it('keeps a link mailed before a deactivation dead once the user is active again, as their sessions', async () => {
      const user = await createTestUser(service, { role: 'readonly' });

      await askForReset({ email: user.email });
      const beforeDeactivation = await inbox.nextMailFor(user.email, 0);
      clock.advance(1000);
      const deactivated = await adminBrowser.request(`/api/v1/users/${user.id}`, {
        method: 'DELETE',
      });
      clock.advance(1000);
      const reactivated = await adminBrowser.request(`/api/v1/users/${user.id}`, {
        method: 'PUT',
        body: { status: 'active' },
      });
      const old = await confirmReset(tokenOf(beforeDeactivation.link));
      const stillOld = await signIn(user.email, user.password);
      clock.advance(1000);
      await askForReset({ email: user.email });
      const afterReactivation = await inbox.nextMailFor(user.email, 1);
      const fresh = await confirmReset(tokenOf(afterReactivation.link));

      expect(deactivated.status).toBe(204);
      expect(reactivated.status).toBe(200);
      expect(fieldPaths(expectNestedError(old, 400, 'invalid_request'))).toEqual(['token']);
      expect(stillOld.status).toBe(200);
      expect(fresh.status).toBe(204);
    });

    it('answers alike whether or not the address has an account, and mails only an account', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const invited = json(
        await adminBrowser.request('/api/v1/users', {
          method: 'POST',
          body: { email: `invited-${Date.now()}@example.com`, name: 'Not Yet', role: 'readonly' },
        }),
      );
      await inbox.nextMailFor(invited.email, 0);
      const deactivated = await createTestUser(service, { role: 'readonly' });
      await adminBrowser.request(`/api/v1/users/${deactivated.id}`, { method: 'DELETE' });
      const before = inbox.received.length;

      const known = await askForReset({ email: user.email });
      const unknown = await askForReset({ email: `nobody-${Date.now()}@example.com` });
      const notAnEmail = await askForReset({ email: 'not an address at all' });
      const notYet = await askForReset({ email: invited.email });
      const gone = await askForReset({ email: deactivated.email });
      await inbox.nextMailFor(user.email, 0);

      expect(answerOf(unknown)).toEqual(answerOf(known));
      expect(answerOf(notAnEmail)).toEqual(answerOf(known));
      expect(answerOf(notYet)).toEqual(answerOf(known));
      expect(answerOf(gone)).toEqual(answerOf(known));
      // Only the account that can sign in with a password got a mail (an invited user has their invitation).
      expect(inbox.received.slice(before).map((mail) => mail.to)).toEqual([user.email]);
    });

    it('throttles requests per account from one address as sign-ins, with or without an account', async () => {
      const user = await createTestUser(service, { role: 'readonly' });
      const nobody = `nobody-${Date.now()}@example.com`;

      for (let attempt = 0; attempt < 10; attempt += 1) {
        expect((await askForReset({ email: user.email })).status).toBe(202);
        expect((await askForReset({ email: nobody })).status).toBe(202);
      }
      const knownRefused = await askForReset({ email: user.email });
      const unknownRefused = await askForReset({ email: nobody });

      for (const refused of [knownRefused, unknownRefused]) {
        const error = expectNestedError(refused, 429, 'rate_limit_exceeded');
        expect(error.details.reason).toBe('login_attempts');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(inbox.mailFor(user.email)).toHaveLength(10);
    }, 30_000);

    it('mails no link to someone held to SSO, and refuses a link sent before SSO was enforced (P268)', async () => {
      const { id: orgId } = await createOrganization(service.runtime.dependencies, {
        name: 'Enforcing Corp',
        plan: 'enterprise',
      });
      const held = await createTestUser(service, { orgId, role: 'readonly' });
      const control = await createTestUser(service, { role: 'readonly' });
      await askForReset({ email: held.email });
      const before = await inbox.nextMailFor(held.email, 0);
      const now = new Date(clock.now()).toISOString();

      // D14: the organization turns enforce_sso on after the mail went out.
      await service.runtime.dependencies.ssoRepository.putConfiguration({
        org_id: orgId,
        protocol: 'oidc',
        enforce_sso: true,
        oidc: {
          issuer: 'https://idp.enforcing.example',
          client_id: 'client',
          preset: null,
          scopes: [],
        },
        client_secret_sealed: null,
        saml: null,
        attribute_mapping: { email: 'email' },
        provision_role: null,
        created_at: now,
        updated_at: now,
      });
      const asked = await askForReset({ email: held.email });
      // Mails go out in order: once the control's has arrived, none for the held user is coming.
      await askForReset({ email: control.email });
      await inbox.nextMailFor(control.email, 0);
      const confirmed = await confirmReset(tokenOf(before.link));

      expect(asked.status).toBe(202);
      expect(inbox.mailFor(held.email)).toHaveLength(1);
      expect(expectNestedError(confirmed, 403, 'forbidden').details.reason).toBe('sso_required');
      expect((await signIn(held.email, held.password)).status).toBe(403);
    });

    it('refuses bad input with 400 naming the field', async () => {
      const noEmail = await askForReset({});
      const badOrg = await askForReset({ email: 'a@example.com', org_id: 'nope' });
      const shortPassword = await confirmReset(`svcpwr_${'a'.repeat(43)}`, 'short');
      const notAToken = await confirmReset('svcinv_whatever');

      expect(fieldPaths(expectNestedError(noEmail, 400, 'invalid_request'))).toEqual(['email']);
      expect(fieldPaths(expectNestedError(badOrg, 400, 'invalid_request'))).toEqual(['org_id']);
      expect(fieldPaths(expectNestedError(shortPassword, 400, 'invalid_request'))).toEqual([
        'new_password',
      ]);
      expect(fieldPaths(expectNestedError(notAToken, 400, 'invalid_request'))).toEqual(['token']);
    });
  });

  describe('invitations', () => {
    it('mails the invitation, whose link sets the password and signs the person in', async () => {
      const email = `invitee-${Date.now()}@example.com`;

      const created = await adminBrowser.request('/api/v1/users', {
        method: 'POST',
        body: { email, name: 'Eve <b>& Co</b>', role: 'train' },
      });
      const mail = await inbox.nextMailFor(email, 0);
      const accepted = await api(service.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token: tokenOf(mail.link), password: 'the invitee passphrase' },
      });

      expect(created.status).toBe(201);
      expect(json(created).invitation).toMatchObject({ mailed: true });
      expect(mail.link).toBe(json(created).invitation.invitation_url);
      expect(mail.subject).toBe('You are invited to Local organization on the Agent Query Service');
      expect(mail.text).toContain('Hello Eve <b>& Co</b>,');
      // Names are text in the HTML part, never markup.
      expect(mail.html).toContain('Hello Eve &lt;b&gt;&amp; Co&lt;/b&gt;,');
      expect(mail.html).not.toContain('<b>');
      expect(accepted.status).toBe(200);
      expect(json(accepted).user).toMatchObject({ email, status: 'active' });
    });

    it('mails a new link when the invitation is sent again, and the first stops working', async () => {
      const email = `again-${Date.now()}@example.com`;
      const created = json(
        await adminBrowser.request('/api/v1/users', {
          method: 'POST',
          body: { email, name: 'Again', role: 'readonly' },
        }),
      );
      const first = await inbox.nextMailFor(email, 0);

      const resent = await adminBrowser.request(`/api/v1/users/${created.id}/invitation`, {
        method: 'POST',
      });
      const second = await inbox.nextMailFor(email, 1);
      const withFirst = await api(service.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token: tokenOf(first.link), password: 'a passphrase for again' },
      });

      expect(json(resent)).toMatchObject({ mailed: true, invitation_url: second.link });
      expect(second.link).not.toBe(first.link);
      expect(fieldPaths(expectNestedError(withFirst, 400, 'invalid_request'))).toEqual(['token']);
    });
  });
});
