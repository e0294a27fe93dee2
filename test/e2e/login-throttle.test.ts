import { LOGIN_THROTTLE } from '../../layers/core/domain/login-throttle';
import { expectNestedError } from '../support/error-shapes';
import { apiFrom } from '../support/from-address';
import { startTestService, type TestService } from '../support/local-service';
import { TestClock } from '../support/test-clock';
import { createTestUser, type TestUser, WebSession } from '../support/web-session';

const HOUR_MS = 3600 * 1000;

/**
 * P62, P212: password guessing slows down per address, per account from an
 * address and per account, and never locks anyone out.
 */
describe('Sign-in throttle (P62, P212)', () => {
  const clock = new TestClock();
  let service: TestService;
  let user: TestUser;
  beforeAll(async () => {
    service = await startTestService({ clock });
    user = await createTestUser(service, { role: 'readonly' });
  });
  afterAll(() => service.end());
  // Every test starts with full buckets: an hour refills both.
  beforeEach(() => clock.advance(HOUR_MS));

  const attempt = (email: string, password: string) =>
    new WebSession(service.url).signIn(email, password);

  it('refuses an account from one address after 10 failures there, even with the right password, until a token comes back', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.accountAddress.burst; i += 1) {
      expect((await attempt(user.email, `wrong guess number ${i}`)).status).toBe(401);
    }

    const throttled = await attempt(user.email, user.password);
    clock.advance(5 * 60 * 1000);
    const later = await attempt(user.email, user.password);

    const error = expectNestedError(throttled, 429, 'rate_limit_exceeded');
    expect(error.details).toMatchObject({ reason: 'login_attempts', limit: 10 });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(later.status).toBe(200);
  });

  it('counts only failures: signing in correctly again and again is never slowed', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.accountAddress.burst + 5; i += 1) {
      expect((await attempt(user.email, user.password)).status).toBe(200);
    }
  });

  it('throttles an unknown email exactly like a known one (nothing is learnt about who exists)', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.accountAddress.burst; i += 1) {
      expect((await attempt('nobody@example.com', `guess ${i} guess`)).status).toBe(401);
    }

    expectNestedError(
      await attempt('nobody@example.com', 'one more guess'),
      429,
      'rate_limit_exceeded',
    );
  });

  it('throttles one address guessing across many accounts', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.address.burst; i += 1) {
      expect((await attempt(`spray${i}@example.com`, 'Summer2026!!')).status).toBe(401);
    }

    const response = await attempt('someone-else@example.com', 'Summer2026!!');

    expect(expectNestedError(response, 429, 'rate_limit_exceeded').details.reason).toBe(
      'login_attempts',
    );
  });

  const attemptFrom = (address: string, email: string, password: string) =>
    apiFrom(address, service.url, '/api/v1/auth/login', {
      method: 'POST',
      body: { email, password },
    });

  it('does not lock the owner out: guesses from eight addresses leave their sign-in from another one alone (issue 20 item 2)', async () => {
    for (let address = 1; address <= 8; address += 1) {
      for (let guess = 0; guess < 2; guess += 1) {
        const response = await attemptFrom(
          `127.0.1.${address}`,
          user.email,
          `guess ${guess} wrong`,
        );
        expect(response.status).toBe(401);
      }
    }

    const owner = await attemptFrom('127.0.2.1', user.email, user.password);
    clock.advance(5 * 60 * 1000);
    await attemptFrom('127.0.1.9', user.email, 'one more guess five minutes on');
    const ownerAgain = await attemptFrom('127.0.2.1', user.email, user.password);

    expect(owner.status).toBe(200);
    expect(ownerAgain.status).toBe(200);
  });

  it('still slows an attacker spread over many addresses, at the account-wide ceiling of 100', async () => {
    const perAddress = LOGIN_THROTTLE.accountAddress.burst;
    const addresses = LOGIN_THROTTLE.account.burst / perAddress;
    for (let address = 0; address < addresses; address += 1) {
      for (let guess = 0; guess < perAddress; guess += 1) {
        const response = await attemptFrom(`127.0.3.${address}`, user.email, `spread ${guess}!!`);
        expect(response.status).toBe(401);
      }
    }

    const fromAnotherAddress = await attemptFrom('127.0.4.1', user.email, 'the 101st guess here');

    const error = expectNestedError(fromAnotherAddress, 429, 'rate_limit_exceeded');
    expect(error.details).toMatchObject({ reason: 'login_attempts', limit: 100 });
  });
});
