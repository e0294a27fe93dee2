import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { useApp } from '../../../app/context';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { type ApiKey, keyEnding } from './api-keys.state';

/**
 * "Revoke" asks first, in a dialog naming the key: a revoked key is refused
 * from the next request on (D11), and nothing brings it back.
 */
export function RevokeKeyDialog({
  apiKey,
  onRevoked,
  onClose,
}: {
  readonly apiKey: ApiKey | null;
  readonly onRevoked: (key: ApiKey) => void;
  readonly onClose: () => void;
}) {
  const { session } = useApp();
  const revoke = useAction(async (key: ApiKey) => {
    await unwrap(session.api.DELETE('/api/v1/keys/{id}', { params: { path: { id: key.id } } }));
    onRevoked(key);
    onClose();
  });
  return (
    <Dialog
      open={apiKey !== null}
      labelledBy="revoke-key-heading"
      onClose={() => {
        revoke.reset();
        onClose();
      }}
    >
      {apiKey ? (
        <>
          <h2 id="revoke-key-heading">Revoke “{apiKey.name}”?</h2>
          <p>
            The key ending in <code>{keyEnding(apiKey.last4)}</code> ({apiKey.scopes.join(', ')})
            stops working at once: every script or application using it is refused from its next
            request. This cannot be undone; a new key would have a new value.
          </p>
          {revoke.failure.value ? <ErrorNotice error={revoke.failure.value} /> : null}
          <div class="form__actions">
            <button
              type="button"
              class="button button--danger"
              disabled={revoke.pending.value}
              onClick={() => void revoke.run(apiKey)}
            >
              {revoke.pending.value ? 'Revoking…' : 'Revoke key'}
            </button>
            <button type="button" class="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : null}
    </Dialog>
  );
}
