import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import {
  agentsBlockingDelete,
  inUseWords,
  type ModelKey,
  modelKeyFailure,
  modelKeyTitle,
} from './model-keys.state';

/**
 * "Delete" asks first, naming the key. A key that agents use is refused
 * (409, P135); the dialog then says which agents, by name and linked
 * (P282), so the person can move them to another key first.
 */
export function DeleteModelKeyDialog({
  modelKey,
  onDeleted,
  onClose,
}: {
  readonly modelKey: ModelKey | null;
  readonly onDeleted: (key: ModelKey) => void;
  readonly onClose: () => void;
}) {
  const { session } = useApp();
  const remove = useAction(async (key: ModelKey) => {
    try {
      await unwrap(
        session.api.DELETE('/api/v1/model-keys/{id}', { params: { path: { id: key.id } } }),
      );
    } catch (error) {
      throw modelKeyFailure(error, key.provider);
    }
    onDeleted(key);
    onClose();
  });
  const blocking = agentsBlockingDelete(remove.failure.value);
  const known = modelKey?.agents ?? [];
  return (
    <Dialog
      open={modelKey !== null}
      labelledBy="delete-model-key-heading"
      onClose={() => {
        remove.reset();
        onClose();
      }}
    >
      {modelKey ? (
        <>
          <h2 id="delete-model-key-heading">Delete “{modelKeyTitle(modelKey)}”?</h2>
          <p>
            The key ending in <code>…{modelKey.last4}</code> is removed from the service; it stays
            valid at the provider until you revoke it there.
            {known.length > 0 ? ` ${inUseWords(known)}` : ''}
          </p>
          {remove.failure.value ? <ErrorNotice error={remove.failure.value} /> : null}
          {blocking.length > 0 ? (
            <ul class="key-users" aria-label="Agents using this key">
              {blocking.map((agent) => (
                <li key={agent.id}>
                  <a href={`/agents/${agent.id}/edit`}>Change {agent.name}</a>
                </li>
              ))}
            </ul>
          ) : null}
          <div class="form__actions">
            <button
              type="button"
              class="button button--danger"
              disabled={remove.pending.value}
              onClick={() => void remove.run(modelKey)}
            >
              {remove.pending.value ? 'Deleting…' : 'Delete key'}
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
