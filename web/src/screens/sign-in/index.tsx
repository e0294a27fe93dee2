import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { formatWait } from '../../format/format';
import { FORGOT_PASSWORD_PATH, safeReturnPath } from '../../navigation/return-path';
import { useApp } from '../../state/app-context';
import {
  browserStorage,
  ORGANIZATION_ID_PATTERN,
  rememberedOrganization,
  rememberOrganization,
} from './remembered-organization';
import './sign-in.css';

/**
 * Where "Sign in with SSO" goes: the organization named, else the one whose
 * verified domain the email is in; `next` is where the service sends
 * the browser once signed in, the console's start page without it.
 */
export function ssoStartUrl(
  who: { readonly email: string; readonly orgId?: string | null },
  next?: string | null,
): string {
  const query = new URLSearchParams(who.orgId ? { org_id: who.orgId } : { email: who.email });
  if (next) query.set('next', next);
  return `/api/v1/sso/start?${query.toString()}`;
}

/** What a refused sign-in tells the person, in words they can act on. */
export function signInMessage(error: unknown, namedOrganization = false): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 401) {
    // The same 401 for every refusal; with an id sent, the id may be what is wrong.
    return namedOrganization
      ? 'Wrong email, password or organization ID.'
      : 'Wrong email or password.';
  }
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
  const location = useLocation();
  /** The organization ID was sent with the refused sign-in. */
  const namedOrganization = useSignal(false);
  /** "Sign in to another organization" is open. */
  const otherOrganization = useSignal(false);
  /** The ID in the field came from this browser's memory of the email, not from the person. */
  const fromMemory = useSignal(false);
  const email = useRef<HTMLInputElement>(null);
  const organization = useRef<HTMLInputElement>(null);

  /** The organization this email last signed in to here fills the field, and opens it. */
  const recall = () => {
    const field = organization.current;
    const address = email.current?.value ?? '';
    if (!field || (field.value && !fromMemory.value)) return; // never overwrite what was typed
    const remembered = rememberedOrganization(browserStorage(), address);
    field.value = remembered ?? '';
    fromMemory.value = remembered !== null;
    if (remembered) otherOrganization.value = true;
  };
  // A browser that filled the email in (autofill, back navigation) gets its organization too.
  useEffect(recall, []);

  const signIn = useAction(async (address: string, password: string, orgId: string) => {
    await session.signIn(address, password, orgId || undefined);
    const signedInTo = session.me.value?.organization.id;
    if (signedInTo) rememberOrganization(browserStorage(), address, signedInTo);
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const orgId = String(form.get('org_id') ?? '').trim();
    namedOrganization.value = orgId !== '';
    void signIn.run(String(form.get('email')), String(form.get('password')), orgId);
  };
  const startSso = () => {
    const input = email.current;
    const orgField = organization.current;
    if (!input) return;
    const orgId = orgField?.value.trim() ?? '';
    if (orgId) {
      if (orgField && !orgField.checkValidity()) {
        orgField.reportValidity();
        orgField.focus();
        return;
      }
    } else if (!input.value || !input.checkValidity()) {
      input.reportValidity();
      input.focus();
      return;
    }
    const next = safeReturnPath(location.query.next);
    window.location.assign(ssoStartUrl({ email: input.value, orgId }, next));
  };

  const error = signIn.failure.value;
  const message = signInMessage(error, namedOrganization.value);
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
        <form class="form" onSubmit={submit}>
          <label for="sign-in-email">Email</label>
          <input
            id="sign-in-email"
            name="email"
            type="email"
            autoComplete="username"
            required
            maxLength={254}
            ref={email}
            onChange={recall}
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
          <p class="sign-in__forgot">
            <a href={FORGOT_PASSWORD_PATH}>Forgot password?</a>
          </p>
          <details
            class="sign-in__organization"
            open={otherOrganization.value}
            onToggle={(event) => {
              otherOrganization.value = (event.currentTarget as HTMLDetailsElement).open;
            }}
          >
            <summary>Sign in to another organization</summary>
            <label for="sign-in-organization">Organization ID</label>
            <input
              id="sign-in-organization"
              name="org_id"
              type="text"
              autoComplete="off"
              spellcheck={false}
              pattern={ORGANIZATION_ID_PATTERN}
              maxLength={30}
              placeholder="org_…"
              aria-describedby="sign-in-organization-hint"
              ref={organization}
              onInput={() => {
                fromMemory.value = false;
              }}
            />
            <p id="sign-in-organization-hint" class="form__hint">
              {fromMemory.value
                ? 'The organization you last signed in to with this email on this browser. Clear it for your usual one.'
                : 'For an email with accounts in several organizations: the ID starts with org_, and an administrator of that organization finds it under Settings. Leave it empty for your usual organization.'}
            </p>
          </details>
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={signIn.pending.value}>
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
