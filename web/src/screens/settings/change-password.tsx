import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { ApiError } from '../../api/api-error';
import { useAction } from '../../api/use-action';
import { confirmedPassword } from '../../components/confirmed-password';
import { ErrorNotice } from '../../components/error-notice';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../components/new-password-fields';
import { formatWait } from '../../format/format';
import { useApp } from '../../state/app-context';

/** Which field a refusal is about, and what to tell the person; null: the shared notice. */
export function changePasswordMessage(
  error: unknown,
): { readonly field: 'current' | 'new' | null; readonly text: string } | null {
  if (!(error instanceof ApiError)) return null;
  const named = (path: string) => error.fields.some((field) => field.path === path);
  if (error.status === 400 && named('current_password')) {
    return { field: 'current', text: 'That is not your current password.' };
  }
  if (error.status === 400 && named('new_password')) {
    return {
      field: 'new',
      text: `The new password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`,
    };
  }
  if (error.status === 429) {
    const wait = error.retryAfter === null ? 'a few minutes' : formatWait(error.retryAfter);
    return { field: null, text: `Too many wrong passwords. Try again in ${wait}.` };
  }
  if (error.reason === 'no_password') {
    return {
      field: null,
      text: 'You sign in with SSO, so there is no password to change here: your identity provider manages it.',
    };
  }
  if (error.reason === 'sso_required') {
    return {
      field: null,
      text: 'Your organization signs in with SSO only, so passwords are not used here: change yours at your identity provider.',
    };
  }
  return null;
}

/**
 * `/settings/password` (issue 21 item 4): the current password and a
 * new one twice. Success ends every other session; this browser continues
 * in the new session the answer brings (its CSRF token adopted by the
 * session).
 */
export function ChangePassword() {
  const { session } = useApp();
  const changed = useSignal(false);
  const current = useRef<HTMLInputElement>(null);
  const next = useRef<HTMLInputElement>(null);
  const change = useAction(
    async (formElement: HTMLFormElement, currentPassword: string, newPassword: string) => {
      await session.changePassword(currentPassword, newPassword);
      formElement.reset();
      changed.value = true;
    },
  );
  const me = session.me.value;
  if (!me) return null;

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const newPassword = confirmedPassword(
      formElement,
      { password: 'new_password', repeat: 'confirm_password' },
      'The new passwords differ.',
    );
    if (newPassword === null) return;
    changed.value = false;
    if (await change.run(formElement, String(form.get('current_password')), newPassword)) return;
    // The field the refusal names gets the focus, so the person can correct it at once.
    const field = changePasswordMessage(change.failure.value)?.field;
    (field === 'current' ? current : field === 'new' ? next : null)?.current?.focus();
  };

  const failure = change.failure.value;
  const refusal = changePasswordMessage(failure);
  return (
    <section class="settings-section" aria-labelledby="password-heading">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/settings">Profile</a>
      </nav>
      <h2 id="password-heading">Change password</h2>
      <section class="panel" aria-labelledby="password-account-heading">
        <h3 id="password-account-heading">Your account</h3>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.user.name}</dd>
          <dt>Email</dt>
          <dd>{me.user.email}</dd>
        </dl>
      </section>
      <section class="panel" aria-labelledby="password-form-heading">
        <h3 id="password-form-heading">Choose a new password</h3>
        <p>
          Changing your password signs you out everywhere else: other browsers and devices must sign
          in again with the new one. This browser stays signed in.
        </p>
        <form class="form password-form" onSubmit={(event) => void submit(event)}>
          <label for="password-current">Current password</label>
          <input
            id="password-current"
            name="current_password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={PASSWORD_MAX}
            aria-invalid={refusal?.field === 'current' ? 'true' : undefined}
            ref={current}
          />
          <label for="password-new">New password</label>
          <input
            id="password-new"
            name="new_password"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN}
            maxLength={PASSWORD_MAX}
            aria-describedby="password-new-hint"
            aria-invalid={refusal?.field === 'new' ? 'true' : undefined}
            ref={next}
          />
          <p id="password-new-hint" class="form__hint">
            {PASSWORD_MIN} to {PASSWORD_MAX} characters. A phrase of a few words is easy to
            remember.
          </p>
          <label for="password-confirm">Repeat the new password</label>
          <input
            id="password-confirm"
            name="confirm_password"
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_MIN}
            maxLength={PASSWORD_MAX}
            onInput={(event) => (event.currentTarget as HTMLInputElement).setCustomValidity('')}
          />
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={change.pending.value}>
              Change password
            </button>
          </div>
        </form>
        {changed.value ? (
          <p class="notice password-form__done" role="status">
            Your password is changed. Every other session has ended: sign in with the new password
            on your other browsers and devices.
          </p>
        ) : null}
        {failure ? (
          refusal ? (
            <p class="error-notice" role="alert">
              {refusal.text}
            </p>
          ) : (
            <ErrorNotice error={failure} />
          )
        ) : null}
      </section>
    </section>
  );
}
