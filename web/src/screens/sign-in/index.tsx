import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { ApiError } from '../../api/api-error';
import { useApp } from '../../app/context';
import { ErrorNotice } from '../../components/error-notice';
import { formatWait } from '../../format/format';
import './sign-in.css';

/** Where "Sign in with SSO" goes: the service finds the organization from the email's verified domain (D14). */
export function ssoStartUrl(email: string): string {
  return `/api/v1/sso/start?email=${encodeURIComponent(email)}`;
}

/** What a refused sign-in tells the person, in words they can act on. */
export function signInMessage(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 401) return 'Wrong email or password.';
  if (error.status === 429) {
    const wait = error.retryAfter === null ? 'a few minutes' : formatWait(error.retryAfter);
    return `Too many sign-in attempts. Try again in ${wait}.`;
  }
  if (error.reason === 'sso_required') {
    return 'Your organization signs in with SSO: use "Sign in with SSO".';
  }
  return null;
}

export default function SignIn() {
  const { session } = useApp();
  const pending = useSignal(false);
  const failure = useSignal<unknown>(null);
  const email = useRef<HTMLInputElement>(null);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    pending.value = true;
    failure.value = null;
    try {
      await session.signIn(String(form.get('email')), String(form.get('password')));
    } catch (error) {
      failure.value = error;
    } finally {
      pending.value = false;
    }
  };
  const startSso = () => {
    const input = email.current;
    if (!input) return;
    if (!input.value || !input.checkValidity()) {
      input.reportValidity();
      input.focus();
      return;
    }
    window.location.assign(ssoStartUrl(input.value));
  };

  const error = failure.value;
  const message = signInMessage(error);
  const ssoUrl =
    error instanceof ApiError && typeof error.details.sso_start_url === 'string'
      ? error.details.sso_start_url
      : null;
  return (
    <main class="public-page" id="main">
      <section class="public-page__card" aria-labelledby="sign-in-heading">
        <p class="public-page__product">Agent Query Service</p>
        <h1 id="sign-in-heading">Sign in</h1>
        {session.notice.value ? (
          <p class="notice" role="status">
            {session.notice}
          </p>
        ) : null}
        <form class="form" onSubmit={(event) => void submit(event)}>
          <label for="sign-in-email">Email</label>
          <input
            id="sign-in-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            maxLength={254}
            ref={email}
          />
          <label for="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={256}
          />
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={pending.value}>
              Sign in
            </button>
            <button type="button" class="button" onClick={startSso}>
              Sign in with SSO
            </button>
          </div>
        </form>
        {error ? (
          message ? (
            <div class="error-notice" role="alert">
              <p>{message}</p>
              {ssoUrl ? (
                <p>
                  <a href={ssoUrl}>Continue with SSO</a>
                </p>
              ) : null}
            </div>
          ) : (
            <ErrorNotice error={error} />
          )
        ) : null}
      </section>
    </main>
  );
}
