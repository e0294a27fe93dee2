import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { type ApiKey, environmentWords, keyEnding, lastUseWords } from './api-keys.state';
import { CreateKeyDialog } from './create-key-dialog';
import { RevokeKeyDialog } from './revoke-key-dialog';
import '../keys.css';

const PAGE_SIZE = 50;

/**
 * API keys (issue 22 item 4; D11: made and revoked by a signed-in
 * administrator, never by a key). The list shows what identifies a key once
 * its value is gone: name, scopes, last four characters and last use (P75).
 * "Create API key" shows the value once (P284); "Revoke" asks first.
 */
export default function ApiKeys() {
  const { session } = useApp();
  const offset = useSignal(0);
  const version = useSignal(0);
  const creating = useSignal(false);
  const revoking = useSignal<ApiKey | null>(null);
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
          <p>No API keys yet. Create one for each script or application that calls the API.</p>
        ) : null}
        {loaded && loaded.keys.length > 0 ? (
          <div class="table-scroll">
            <table class="table keys-table">
              <caption>
                The organization's API keys, newest first ({formatNumber(loaded.total)})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Ends in</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {loaded.keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row" class="keys-table__name">
                      {key.name}
                    </th>
                    <td>{key.scopes.join(', ')}</td>
                    <td>
                      <code>{keyEnding(key.last4)}</code>
                    </td>
                    <td>
                      {key.last_used_at ? (
                        <time dateTime={key.last_used_at} title={formatDateTime(key.last_used_at)}>
                          {lastUseWords(key.last_used_at)}
                        </time>
                      ) : (
                        lastUseWords(null)
                      )}
                    </td>
                    <td>
                      <button
                        type="button"
                        class="button button--small button--danger"
                        aria-label={`Revoke ${key.name}`}
                        onClick={() => {
                          said.value = null;
                          revoking.value = key;
                        }}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
      <RevokeKeyDialog
        apiKey={revoking.value}
        onRevoked={(key) =>
          reload(`API key “${key.name}” revoked: requests with it are refused from now on.`)
        }
        onClose={() => {
          revoking.value = null;
        }}
      />
    </>
  );
}
