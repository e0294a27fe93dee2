import { confirmedPassword } from './confirmed-password';

/** The service's password policy, checked by the browser first. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * A new password asked for twice, as the pages that set one without an old
 * one ask it (the first administrator, an invitation, a reset link): two
 * fields named `password` and `confirm-password`, the policy's bounds and
 * its hint. `idPrefix` keeps the ids unique on the page.
 */
export function NewPasswordFields({
  idPrefix,
  label = 'New password',
  repeatLabel = 'Confirm new password',
}: {
  readonly idPrefix: string;
  readonly label?: string;
  readonly repeatLabel?: string;
}) {
  const id = `${idPrefix}-password`;
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        aria-describedby={`${id}-hint`}
      />
      <p id={`${id}-hint`} class="form__hint">
        At least {PASSWORD_MIN} characters.
      </p>
      <label for={`${idPrefix}-confirm-password`}>{repeatLabel}</label>
      <input
        id={`${idPrefix}-confirm-password`}
        name="confirm-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        onInput={(event) => (event.currentTarget as HTMLInputElement).setCustomValidity('')}
      />
    </>
  );
}

/** The password {@link NewPasswordFields} holds once both entries agree (null after showing why not). */
export function newPasswordOf(form: HTMLFormElement): string | null {
  return confirmedPassword(form, { password: 'password', repeat: 'confirm-password' });
}
