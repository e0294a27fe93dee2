/**
 * The password a form asks for twice, once both entries agree; otherwise
 * null, after the browser has shown `mismatch` on the repeat field through
 * its own constraint message (so it is announced like any other). Used by
 * every form that sets a password: the first administrator, an invitation,
 * a password change.
 */
export function confirmedPassword(
  form: HTMLFormElement,
  fields: { readonly password: string; readonly repeat: string },
  mismatch = 'The passwords differ.',
): string | null {
  const values = new FormData(form);
  const password = String(values.get(fields.password));
  const repeat = form.elements.namedItem(fields.repeat) as HTMLInputElement;
  repeat.setCustomValidity(password === String(values.get(fields.repeat)) ? '' : mismatch);
  return repeat.reportValidity() ? password : null;
}
