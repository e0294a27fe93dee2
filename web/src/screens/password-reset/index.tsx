import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { NewPasswordFields, newPasswordOf } from '../../components/new-password-fields';
import { FORGOT_PASSWORD_PATH, SIGN_IN_PATH } from '../../navigation/return-path';
import { useApp } from '../../state/app-context';
import { passwordResetToken, resetMessage } from './password-reset-words';

/**
 * Where a password reset mail's link opens: a new password,
 * asked twice; then every session of the person has ended (this browser's
 * too) and they sign in with it (the reset signs nobody in).
 */
export default function PasswordReset() {
  const { session } = useApp();
  const location = useLocation();
  const [token] = useState(() => {
    const found = passwordResetToken(window.location.hash);
    if (window.location.hash) {
      window.history.replaceState(window.history.state, '', window.location.pathname);
    }
    return found;
  });
  const reset = useAction(async (resetToken: string, password: string) => {
    await unwrap(
      session.api.POST('/api/v1/auth/password-reset/confirm', {
        body: { token: resetToken, new_password: password },
      }),
    );
    // A session this browser had has ended with the reset: forget it here too.
    if (session.status.value === 'signed-in') await session.signOut().catch(() => undefined);
    session.notice.value =
      'Your new password is set, and you are signed out everywhere. Sign in with it.';
    location.route(SIGN_IN_PATH, true);
  });

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    if (!token) return;
    const password = newPasswordOf(event.currentTarget as HTMLFormElement);
    if (password === null) return;
    void reset.run(token, password);
  };

  const failure = reset.failure.value;
  const message = resetMessage(failure);
  return (
    <main class="public-page" id="main">
      <section class="public-page__card" aria-labelledby="reset-heading">
        <p class="public-page__product">Agent Query Service</p>
        <h1 id="reset-heading">Choose a new password</h1>
        {token ? (
          <>
            <p>Setting it signs you out everywhere; then you sign in with the new password.</p>
            <form class="form" onSubmit={submit}>
              <NewPasswordFields idPrefix="reset" />
              <div class="form__actions">
                <button type="submit" class="button button--primary" disabled={reset.pending.value}>
                  Set new password
                </button>
              </div>
            </form>
          </>
        ) : (
          <p class="error-notice" role="alert">
            This address holds no reset link. Open the link from your mail again, or ask for a new
            one.
          </p>
        )}
        {failure ? (
          message ? (
            <div class="error-notice" role="alert">
              <p>{message}</p>
              <p>
                <a href={FORGOT_PASSWORD_PATH}>Ask for a new link</a>
              </p>
            </div>
          ) : (
            <ErrorNotice error={failure} />
          )
        ) : null}
        <p>
          <a href={SIGN_IN_PATH}>Go to sign-in</a>
        </p>
      </section>
    </main>
  );
}
