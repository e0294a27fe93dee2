import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { type Column, type Confirmation, ListTable } from '../../../components/list-table';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { type ApiKey, environmentWords, keyEnding, lastUseWords } from './api-keys.state';
import { CreateKeyDialog } from './create-key-dialog';
import '../keys.css';

const PAGE_SIZE = 50;

/** What identifies a key once its value is gone: its scopes, its last four characters, its last use. */
const KEY_COLUMNS: readonly Column<ApiKey>[] = [
  { heading: 'Scopes', cell: (key) => key.scopes.join(', ') },
  { heading: 'Ends in', cell: (key) => <code>{keyEnding(key.last4)}</code> },
  {
    heading: 'Last used',
    cell: (key) =>
      key.last_used_at ? (
        <time dateTime={key.last_used_at} title={formatDateTime(key.last_used_at)}>
          {lastUseWords(key.last_used_at)}
        </time>
      ) : (
        lastUseWords(null)
      ),
  },
];

/**
 * API keys (issue 22 item 4: made and revoked by a signed-in
 * administrator, never by a key). The list shows what identifies a key once
 * its value is gone: name, scopes, last four characters and last use.
 * "Create API key" shows the value once; "Revoke" asks first.
 */
export default function ApiKeys() {
  const { session } = useApp();
  const offset = useSignal(0);
  const version = useSignal(0);
  const creating = useSignal(false);
  const said = useSignal<string | null>(null);
  const keys = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/keys', {
          params: { query: { limit: String(PAGE_SIZE), offset: String(offset.value) } },
          signal,
        }),
      ),
    [offset.value, version.value],
  );
  const loaded = keys.data.value;
  const reload = (message: string) => {
    said.value = message;
    version.value += 1;
  };
  const environment = loaded ? environmentWords(loaded.environment) : null;
  const revoke: Confirmation<ApiKey> = {
    question: (key) => `Revoke “${key.name}”?`,
    explanation: (key) => (
      <p>
        The key ending in <code>{keyEnding(key.last4)}</code> ({key.scopes.join(', ')}) stops
        working at once: every script or application using it is refused from its next request. This
        cannot be undone; a new key would have a new value.
      </p>
    ),
    confirm: 'Revoke key',
    working: 'Revoking…',
    // A revoked key is refused from its next request on, and nothing brings it back.
    perform: async (key) => {
      await unwrap(session.api.DELETE('/api/v1/keys/{id}', { params: { path: { id: key.id } } }));
      reload(`API key “${key.name}” revoked: requests with it are refused from now on.`);
    },
  };

  return (
    <>
      <section class="panel" aria-labelledby="api-keys-heading">
        <h2 id="api-keys-heading">API keys</h2>
        <p>
          Scripts and applications call the API with a key in the <code>Authorization: Bearer</code>{' '}
          header. Its scopes limit what it may do. A key's value is shown once, when it is made;
          afterwards only its last four characters.
          {environment ? (
            <>
              {' '}
              This deployment makes {environment.label.toLowerCase()} keys (
              <code>{environment.prefix}…</code>).
            </>
          ) : null}
        </p>
        {loaded ? (
          <p class="panel__actions">
            <button
              type="button"
              class="button button--primary"
              onClick={() => {
                said.value = null;
                creating.value = true;
              }}
            >
              Create API key
            </button>
          </p>
        ) : null}
        {said.value ? (
          <p class="notice" role="status">
            {said.value}
          </p>
        ) : null}
        {keys.error.value ? <ErrorNotice error={keys.error.value} /> : null}
        {loaded && loaded.keys.length === 0 ? (
          <p>
            No API keys yet. Create one with "Create API key" for each script or application that
            calls the API.
          </p>
        ) : null}
        {loaded && loaded.keys.length > 0 ? (
          <ListTable
            class="keys-table"
            caption={`The organization's API keys, newest first (${formatNumber(loaded.total)})`}
            rows={loaded.keys}
            rowKey={(key) => key.id}
            rowName={(key) => key.name}
            header={{ heading: 'Name', class: 'keys-table__name', cell: (key) => key.name }}
            columns={KEY_COLUMNS}
            actions={[{ label: 'Revoke', danger: true, confirm: revoke }]}
            onAction={() => {
              said.value = null;
            }}
          />
        ) : null}
        {loaded && loaded.total > PAGE_SIZE ? (
          <nav class="pager" aria-label="API key pages">
            <button
              type="button"
              class="button"
              disabled={offset.value === 0}
              onClick={() => {
                offset.value = Math.max(0, offset.value - PAGE_SIZE);
              }}
            >
              Previous
            </button>
            <span>
              {formatNumber(offset.value + 1)}–
              {formatNumber(Math.min(offset.value + PAGE_SIZE, loaded.total))} of{' '}
              {formatNumber(loaded.total)}
            </span>
            <button
              type="button"
              class="button"
              disabled={offset.value + PAGE_SIZE >= loaded.total}
              onClick={() => {
                offset.value += PAGE_SIZE;
              }}
            >
              Next
            </button>
          </nav>
        ) : null}
      </section>
      {loaded ? (
        <CreateKeyDialog
          open={creating.value}
          environment={loaded.environment}
          onCreated={(name) => reload(`API key “${name}” created.`)}
          onClose={() => {
            creating.value = false;
          }}
        />
      ) : null}
    </>
  );
}
