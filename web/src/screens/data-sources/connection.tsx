import { useSignal } from '@preact/signals';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { useApp } from '../../state/app-context';
import { type DataSource, TYPE_NAMES } from './words';

/**
 * A connector's account: "Connect" asks the service for
 * the provider's sign-in address (a GET with the CSRF token, answered as
 * JSON) and goes there; the provider returns to the service's callback,
 * whose page leads back here. "Disconnect" deletes the tokens and
 * revokes them at the provider, and says when the provider did not confirm.
 */
export function ConnectionPanel({
  source,
  canChange,
  onChanged,
}: {
  readonly source: DataSource;
  readonly canChange: boolean;
  readonly onChanged: () => void;
}) {
  const { session } = useApp();
  const revocationNote = useSignal<string | null>(null);
  const provider = TYPE_NAMES[source.type];
  const status = source.connection_status ?? 'Disconnected';

  const connect = async () => {
    const started = await unwrap(
      session.api.GET('/api/v1/data-sources/{id}/oauth/start', {
        params: { path: { id: source.id } },
        headers: { Accept: 'application/json' },
      }),
    );
    window.location.assign(started.authorization_url);
  };
  const disconnect = async () => {
    revocationNote.value = null;
    const result = await unwrap(
      session.api.DELETE('/api/v1/data-sources/{id}/connection', {
        params: { path: { id: source.id } },
      }),
    );
    revocationNote.value = result.revoked_at_provider
      ? `Disconnected: ${provider} confirmed the access is revoked.`
      : `Disconnected here. ${provider} did not confirm the revocation: ${
          result.revocation_error ?? 'remove the app in your account there'
        }`;
    onChanged();
  };
  // One action for both buttons: either disables the other, and one notice shows the last failure.
  const change = useAction((perform: () => Promise<void>) => perform());

  return (
    <section class="panel" aria-labelledby="connection-heading">
      <h2 id="connection-heading">Connection</h2>
      <p>
        {provider} account:{' '}
        <strong class="connection" data-connection={status}>
          {status}
        </strong>
      </p>
      {status === 'Connection failed' ? (
        <p>{provider} refused the access this source had. Connect again to resume its syncs.</p>
      ) : null}
      {canChange ? (
        <div class="form__actions">
          <button
            type="button"
            class="button button--primary"
            disabled={change.pending.value}
            onClick={() => void change.run(connect)}
          >
            {status === 'Connected' ? 'Connect again' : 'Connect'}
          </button>
          {status !== 'Disconnected' ? (
            <button
              type="button"
              class="button"
              disabled={change.pending.value}
              onClick={() => void change.run(disconnect)}
            >
              Disconnect
            </button>
          ) : null}
        </div>
      ) : null}
      {revocationNote.value ? (
        <p class="notice" role="status">
          {revocationNote.value}
        </p>
      ) : null}
      {change.failure.value ? <ErrorNotice error={change.failure.value} /> : null}
    </section>
  );
}
