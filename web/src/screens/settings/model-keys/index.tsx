import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { DeleteModelKeyDialog } from './delete-model-key-dialog';
import { type ModelKey, modelKeyTitle, PROVIDERS, providerLabel } from './model-keys.state';
import { ProviderForm } from './provider-form';
import '../keys.css';

/** The API's page size at most; organizations hold a handful of keys. */
const PAGE_SIZE = 100;

/**
 * Model keys (issue 22 item 5; D33): the organization's own provider keys,
 * which agents set to use one answer with (billed to the organization's
 * provider account, P131). Each key is listed by its last four characters
 * and the agents using it (P282); one form per provider adds a key, checked
 * with the provider first (P132), whose refusal is shown in its own words.
 */
export default function ModelKeys() {
  const { session } = useApp();
  const version = useSignal(0);
  const deleting = useSignal<ModelKey | null>(null);
  const said = useSignal<string | null>(null);
  const keys = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/model-keys', {
          params: { query: { limit: String(PAGE_SIZE) } },
          signal,
        }),
      ),
    [version.value],
  );
  const loaded = keys.data.value;
  const reload = (message: string) => {
    said.value = message;
    version.value += 1;
  };

  return (
    <>
      <section class="panel" aria-labelledby="model-keys-heading">
        <h2 id="model-keys-heading">Model keys</h2>
        <p>
          An agent set to use one of these keys answers with your organization's own provider
          account, which is billed for it. A key is checked with its provider when it is saved;
          afterwards only its last four characters are ever shown. Choose the key for an agent on
          the agent's own page.
        </p>
        {said.value ? (
          <p class="notice" role="status">
            {said.value}
          </p>
        ) : null}
        {keys.error.value ? <ErrorNotice error={keys.error.value} /> : null}
        {loaded && loaded.model_keys.length === 0 ? (
          <p>No model keys yet: every agent answers with the service's own model.</p>
        ) : null}
        {loaded && loaded.model_keys.length > 0 ? (
          <div class="table-scroll">
            <table class="table keys-table">
              <caption>The organization's model keys ({formatNumber(loaded.total)})</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Ends in</th>
                  <th scope="col">Used by</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {loaded.model_keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row" class="keys-table__name">
                      {modelKeyTitle(key)}
                    </th>
                    <td>
                      {providerLabel(key.provider)}
                      {key.endpoint ? (
                        <>
                          <br />
                          <code class="key-endpoint">{key.endpoint}</code>
                        </>
                      ) : null}
                    </td>
                    <td>
                      <code>…{key.last4}</code>
                    </td>
                    <td>
                      {key.agents.length === 0 ? (
                        'No agent'
                      ) : (
                        <ul class="key-users">
                          {key.agents.map((agent) => (
                            <li key={agent.id}>
                              <a href={`/agents/${agent.id}`}>{agent.name}</a>
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>
                      <time dateTime={key.created_at}>{formatDateTime(key.created_at)}</time>
                    </td>
                    <td>
                      <button
                        type="button"
                        class="button button--small button--danger"
                        aria-label={`Delete ${modelKeyTitle(key)}`}
                        onClick={() => {
                          said.value = null;
                          deleting.value = key;
                        }}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <div class="provider-forms">
        {PROVIDERS.map((entry) => (
          <ProviderForm
            key={entry.provider}
            provider={entry.provider}
            onSaved={(key) =>
              reload(`${providerLabel(key.provider)} key “${modelKeyTitle(key)}” saved.`)
            }
          />
        ))}
      </div>
      <DeleteModelKeyDialog
        modelKey={deleting.value}
        onDeleted={(key) => reload(`Model key “${modelKeyTitle(key)}” deleted.`)}
        onClose={() => {
          deleting.value = null;
        }}
      />
    </>
  );
}
