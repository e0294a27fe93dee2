import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { CopyButton } from '../../../components/copy-button';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import {
  explainSsoFailure,
  type SsoConfiguration,
  type SsoDomain,
  testSignInHref,
  withEnforcement,
} from './sso-setup';

/**
 * A link that leaves the console for the service's own paths: the browser
 * follows it, not preact-iso's router (which would look for a screen at
 * `/api/…`), by keeping the click from reaching the router's listener.
 */
const leaveConsole = (event: MouseEvent) => event.stopPropagation();

/** Step 3: sign in through the provider and land back here. */
export function TestSignIn({
  orgId,
  saved,
}: {
  readonly orgId: string;
  readonly saved: SsoConfiguration;
}) {
  return (
    <section class="panel sso-step" aria-labelledby="sso-test-heading">
      <h2 id="sso-test-heading">3. Test the sign-in</h2>
      <p>
        Sign in at your identity provider with your own account, as your people will. You come back
        to this page, signed in through SSO. Whoever signs in there is signed in to this browser.
      </p>
      <p>
        <a class="button" href={testSignInHref(orgId)} onClick={leaveConsole}>
          Test sign-in
        </a>
      </p>
      <p class="form__hint">
        Your people can start from “Sign in with SSO” on the sign-in page, or from this link:
      </p>
      <p class="sso-link">
        <code>{saved.sign_in_url}</code>{' '}
        <CopyButton value={saved.sign_in_url} label="Copy sign-in link" />
      </p>
    </section>
  );
}

/**
 * Step 4: enforcing SSO refuses password sign-in and ends
 * password sessions, for the organization and for its verified domains'
 * addresses everywhere, but not the session turning it on. Asked in a
 * dialog that says exactly who is signed out.
 */
export function Enforcement({
  orgId,
  organizationName,
  saved,
  domains,
  changed,
}: {
  readonly orgId: string;
  readonly organizationName: string;
  readonly saved: SsoConfiguration;
  readonly domains: readonly SsoDomain[];
  readonly changed: (configuration: SsoConfiguration) => void;
}) {
  const { session } = useApp();
  const confirming = useSignal(false);
  const setEnforced = useAction(async (enforce: boolean) => {
    const configuration = await unwrap(
      session.api.PUT('/api/v1/organizations/{id}/sso', {
        params: { path: { id: orgId } },
        body: withEnforcement(saved, enforce),
      }),
    );
    confirming.value = false;
    changed(configuration);
  });
  const verified = domains.filter((domain) => domain.status === 'verified');
  const domainList = verified.map((domain) => domain.domain).join(', ');
  return (
    <section class="panel sso-step" aria-labelledby="sso-enforce-heading">
      <h2 id="sso-enforce-heading">4. Enforce SSO</h2>
      {saved.enforce_sso ? (
        <>
          <p class="sso-status" data-status="verified">
            SSO is enforced: password sign-in is refused.
          </p>
          <p>
            Stopping lets people sign in with their passwords again. Sessions that enforcement ended
            stay ended.
          </p>
          <div class="form__actions">
            <button
              type="button"
              class="button"
              disabled={setEnforced.pending.value}
              onClick={() => void setEnforced.run(false)}
            >
              Stop enforcing SSO
            </button>
          </div>
          {setEnforced.failure.value ? (
            <ErrorNotice error={explainSsoFailure(setEnforced.failure.value)} />
          ) : null}
        </>
      ) : (
        <>
          <p>
            Off: people may still sign in with a password. Enforcing SSO makes your identity
            provider the only way in. Test the sign-in first.
          </p>
          <div class="form__actions">
            <button
              type="button"
              class="button"
              onClick={() => {
                setEnforced.reset();
                confirming.value = true;
              }}
            >
              Enforce SSO…
            </button>
          </div>
        </>
      )}
      <Dialog
        open={confirming.value}
        labelledBy="sso-enforce-dialog-heading"
        class="sso-dialog"
        onClose={() => {
          confirming.value = false;
        }}
      >
        <h2 id="sso-enforce-dialog-heading">Enforce SSO?</h2>
        <p>Password sign-in is refused from now on, and password sessions end, for:</p>
        <ul>
          <li>everyone in {organizationName};</li>
          {verified.length > 0 ? (
            <li>everyone whose email address is at {domainList}, in any organization.</li>
          ) : null}
        </ul>
        <p>
          Those signed in with a password are signed out within 30 seconds, on every browser and
          device, and stay signed out if you turn this off again. Sessions signed in through SSO
          carry on, and so does yours in this browser, so you can undo this if your identity
          provider fails. API keys keep working.
        </p>
        <p class="sso-warning">
          People here whose email is not at {domainList || 'a verified domain'} cannot sign in
          through SSO either: they will have no way in.
        </p>
        {setEnforced.failure.value ? (
          <ErrorNotice error={explainSsoFailure(setEnforced.failure.value)} />
        ) : null}
        <div class="form__actions">
          <button
            type="button"
            class="button button--danger"
            disabled={setEnforced.pending.value}
            onClick={() => void setEnforced.run(true)}
          >
            Enforce SSO and sign out password sessions
          </button>
          <button
            type="button"
            class="button"
            onClick={() => {
              confirming.value = false;
            }}
          >
            Cancel
          </button>
        </div>
      </Dialog>
    </section>
  );
}

/** `DELETE …/sso`: password sign-in applies again. Asked first. */
export function RemoveSso({
  orgId,
  removed,
}: {
  readonly orgId: string;
  readonly removed: () => void;
}) {
  const { session } = useApp();
  const confirming = useSignal(false);
  const remove = useAction(async () => {
    await unwrap(
      session.api.DELETE('/api/v1/organizations/{id}/sso', { params: { path: { id: orgId } } }),
    );
    confirming.value = false;
    removed();
  });
  return (
    <section class="panel sso-step" aria-labelledby="sso-remove-heading">
      <h2 id="sso-remove-heading">Remove SSO</h2>
      <p>Turns single sign-on off. Your verified domains stay.</p>
      <div class="form__actions">
        <button
          type="button"
          class="button"
          onClick={() => {
            remove.reset();
            confirming.value = true;
          }}
        >
          Remove SSO…
        </button>
      </div>
      <ConfirmDialog
        open={confirming.value}
        onClose={() => {
          confirming.value = false;
        }}
        question="Remove SSO?"
        confirm="Remove SSO"
        action={remove}
      >
        <p>
          Nobody can sign in through your identity provider any more, and enforcement ends: password
          sign-in works again. People who only ever signed in through SSO have no password, so they
          cannot sign in until SSO is set up again. Sessions already open carry on.
        </p>
      </ConfirmDialog>
    </section>
  );
}
