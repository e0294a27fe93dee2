import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { NewPasswordFields, newPasswordOf } from '../../components/new-password-fields';
import { useApp } from '../../state/app-context';

/**
 * The token of an invitation link (`<origin>/invitations/accept#token=svcinv_…`).
 * It travels in the fragment, which browsers never send to a server or in a
 * Referer; the page removes it from the address bar once read.
 */
export function invitationToken(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token?.startsWith('svcinv_') ? token : null;
}

function acceptMessage(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 400 && error.fields.some((field) => field.path === 'token')) {
    return 'This invitation link no longer works: it was used, replaced by a newer one, or has expired. Ask your administrator for a new invitation.';
  }
  if (error.reason === 'sso_required') {
    return 'Your organization signs in with SSO: you do not need a password. Sign in with SSO instead.';
  }
  return null;
}

export default function AcceptInvitation() {
  const { session } = useApp();
  const location = useLocation();
  const [token] = useState(() => {
    const found = invitationToken(window.location.hash);
    if (window.location.hash) {
      window.history.replaceState(window.history.state, '', window.location.pathname);
    }
    return found;
  });
  const accept = useAction(async (invitation: string, password: string) => {
    await session.acceptInvitation(invitation, password);
    location.route('/', true);
  });

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    if (!token) return;
    const password = newPasswordOf(event.currentTarget as HTMLFormElement);
    if (password === null) return;
    void accept.run(token, password);
  };

  const failure = accept.failure.value;
  const message = acceptMessage(failure);
  return (
    <main class="public-page" id="main">
      <section class="public-page__card" aria-labelledby="invitation-heading">
        <p class="public-page__product">Agent Query Service</p>
        <h1 id="invitation-heading">Accept your invitation</h1>
        {token ? (
          <>
            <p>Choose the password you will sign in with.</p>
            <form class="form" onSubmit={submit}>
              <NewPasswordFields idPrefix="invitation" />
              <div class="form__actions">
                <button
                  type="submit"
                  class="button button--primary"
                  disabled={accept.pending.value}
                >
                  Set password and sign in
                </button>
              </div>
            </form>
          </>
        ) : (
          <p class="error-notice" role="alert">
            This address holds no invitation. Open the link from your invitation again, or ask your
            administrator for a new one.
          </p>
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
          <a href="/sign-in">Go to sign-in</a>
        </p>
      </section>
    </main>
  );
}
