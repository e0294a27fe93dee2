import { useSignal } from '@preact/signals';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { SIGN_IN_PATH } from '../../navigation/return-path';
import { useApp } from '../../state/app-context';
import { RESET_REQUESTED, requestMessage } from '../password-reset/password-reset-words';

/**
 * "Forgot password?" (issue 22 item 9): asks for the email and
 * always answers the same words (the service tells nobody which
 * addresses have an account); the mail holds the link to the reset page.
 */
export default function ForgotPassword() {
  const { session } = useApp();
  const sent = useSignal(false);
  const request = useAction(async (email: string) => {
    await unwrap(session.api.POST('/api/v1/auth/password-reset', { body: { email } }));
    sent.value = true;
  });

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget as HTMLFormElement).get('email'));
    void request.run(email);
  };

  const failure = request.failure.value;
  const message = requestMessage(failure);
  return (
    <main class="public-page" id="main">
      <section class="public-page__card" aria-labelledby="forgot-heading">
        <p class="public-page__product">Agent Query Service</p>
        <h1 id="forgot-heading">Reset your password</h1>
        {sent.value ? (
          <p class="notice" role="status">
            {RESET_REQUESTED}
          </p>
        ) : (
          <>
            <p>
              Enter the email you sign in with, and we will mail you a link to choose a new
              password.
            </p>
            <form class="form" onSubmit={submit}>
              <label for="forgot-email">Email</label>
              <input
                id="forgot-email"
                name="email"
                type="email"
                autoComplete="username"
                required
                maxLength={254}
              />
              <div class="form__actions">
                <button
                  type="submit"
                  class="button button--primary"
                  disabled={request.pending.value}
                >
                  Send reset link
                </button>
              </div>
            </form>
          </>
        )}
        {failure ? (
          message ? (
            <p class="error-notice" role="alert">
              {message}
            </p>
          ) : (
            <ErrorNotice error={failure} />
          )
        ) : null}
        <p>
          <a href={SIGN_IN_PATH}>Back to sign-in</a>
        </p>
      </section>
    </main>
  );
}
