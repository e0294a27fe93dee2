import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useApp } from '../../../state/app-context';
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
  const revoke = useAction(async () => {
    if (!apiKey) return;
    await unwrap(session.api.DELETE('/api/v1/keys/{id}', { params: { path: { id: apiKey.id } } }));
    onRevoked(apiKey);
    onClose();
  });
  return (
    <ConfirmDialog
      open={apiKey !== null}
      onClose={onClose}
      question={`Revoke “${apiKey?.name ?? ''}”?`}
      confirm="Revoke key"
      working="Revoking…"
      action={revoke}
    >
      {apiKey ? (
        <p>
          The key ending in <code>{keyEnding(apiKey.last4)}</code> ({apiKey.scopes.join(', ')})
          stops working at once: every script or application using it is refused from its next
          request. This cannot be undone; a new key would have a new value.
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
