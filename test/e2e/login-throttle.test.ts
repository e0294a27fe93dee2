import { LOGIN_THROTTLE } from '../../layers/core/domain/login-throttle';
import { expectNestedError } from '../support/error-shapes';
import { startTestService, type TestService } from '../support/local-service';
import { TestClock } from '../support/test-clock';
import { createTestUser, type TestUser, WebSession } from '../support/web-session';

const HOUR_MS = 3600 * 1000;

/** P62: password guessing slows down per account and per address, and never locks anyone out. */
describe('Sign-in throttle (P62)', () => {
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

  it('refuses an account after 10 failures, even with the right password, until a token comes back', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.burst; i += 1) {
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
    for (let i = 0; i < LOGIN_THROTTLE.account.burst + 5; i += 1) {
      expect((await attempt(user.email, user.password)).status).toBe(200);
    }
  });

  it('throttles an unknown email exactly like a known one (nothing is learnt about who exists)', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.account.burst; i += 1) {
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
});
