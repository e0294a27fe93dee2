import { InvalidRequestError } from '../../layers/core/domain/errors';
import { createUser } from '../../layers/core/use-cases/users/user-use-cases';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** Each ASCII letter as its fullwidth look-alike (U+FF41 for `a`…), which NFKC folds back. */
const fullwidth = (text: string) =>
  text.replace(/[a-z]/g, (letter) => String.fromCodePoint(letter.codePointAt(0)! - 0x61 + 0xff41));

/**
 * Addresses written with compatibility look-alikes (docs/decisions/identity.md):
 * typed to sign in, they fold into the plain address they look like; as a
 * new address, anywhere one is made, they are refused.
 */
describe('Look-alike email addresses', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('signs in the plain address when it is typed with fullwidth letters', async () => {
    const user = await createTestUser(service, {
      role: 'readonly',
      email: `plain-${Date.now()}@a.example`,
    });
    const [local, domain] = user.email.split('@');

    const typed = await api(service.url, '/api/v1/auth/login', {
      method: 'POST',
      body: { email: `${local}@${fullwidth(domain ?? '')}`, password: user.password },
    });

    expect(typed.status).toBe(200);
    expect(json(typed).user).toMatchObject({ id: user.id, email: user.email });
  });

  it('refuses a new user, or a new address for one, written with look-alikes (400 naming email)', async () => {
    const user = await createTestUser(service, { role: 'readonly' });

    const created = await admin.request('/api/v1/users', {
      method: 'POST',
      body: { email: `new@${fullwidth('a')}.example`, name: 'New', role: 'readonly' },
    });
    const changed = await admin.request(`/api/v1/users/${user.id}`, {
      method: 'PUT',
      body: { email: `${fullwidth('changed')}@a.example` },
    });

    expect(fieldPaths(expectNestedError(created, 400, 'invalid_request'))).toEqual(['email']);
    expect(fieldPaths(expectNestedError(changed, 400, 'invalid_request'))).toEqual(['email']);
  });

  it('refuses one from the operator and the first-administrator setup too, naming the plain address', async () => {
    const made = createUser(service.runtime.dependencies, service.orgId, {
      email: `operator@${fullwidth('a')}.example`,
      name: 'Operator',
      role: 'admin',
      password: 'a long enough password',
    });

    await expect(made).rejects.toThrow(InvalidRequestError);
    await expect(made).rejects.toThrow(/as operator@a\.example/);
  });
});
