import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { type Column, type Confirmation, ListTable } from '../../../components/list-table';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import {
  agentsBlockingDelete,
  inUseWords,
  type ModelKey,
  modelKeyFailure,
  modelKeyTitle,
  PROVIDERS,
  providerLabel,
} from './model-keys.state';
import { ProviderForm } from './provider-form';
import '../keys.css';

/** The API's page size at most; organizations hold a handful of keys. */
const PAGE_SIZE = 100;

const MODEL_KEY_COLUMNS: readonly Column<ModelKey>[] = [
  {
    heading: 'Provider',
    cell: (key) => (
      <>
        {providerLabel(key.provider)}
        {key.endpoint ? (
          <>
            <br />
            <code class="key-endpoint">{key.endpoint}</code>
          </>
        ) : null}
      </>
    ),
  },
  { heading: 'Ends in', cell: (key) => <code>…{key.last4}</code> },
  {
    heading: 'Used by',
    cell: (key) =>
      key.agents.length === 0 ? (
        'No agent'
      ) : (
        <ul class="key-users">
          {key.agents.map((agent) => (
            <li key={agent.id}>
              <a href={`/agents/${agent.id}`}>{agent.name}</a>
            </li>
          ))}
        </ul>
      ),
  },
  {
    heading: 'Added',
    cell: (key) => <time dateTime={key.created_at}>{formatDateTime(key.created_at)}</time>,
  },
];

/** Under a refused delete: the agents that still use the key, each linked to its edit page. */
function BlockingAgents({ failure }: { readonly failure: unknown }) {
  const blocking = agentsBlockingDelete(failure);
  if (blocking.length === 0) return null;
  return (
    <ul class="key-users" aria-label="Agents using this key">
      {blocking.map((agent) => (
        <li key={agent.id}>
          <a href={`/agents/${agent.id}/edit`}>Change {agent.name}</a>
        </li>
      ))}
    </ul>
  );
}

/**
 * Model keys (issue 22 item 5): the organization's own provider keys,
 * which agents set to use one answer with (billed to the organization's
 * provider account). Each key is listed by its last four characters
 * and the agents using it; one form per provider adds a key, checked
 * with the provider first, whose refusal is shown in its own words.
 */
export default function ModelKeys() {
  const { session } = useApp();
  const version = useSignal(0);
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
  // A key that agents use is refused (409); the dialog then names them, linked, so the person
  // can move them to another key first.
  const remove: Confirmation<ModelKey> = {
    question: (key) => `Delete “${modelKeyTitle(key)}”?`,
    explanation: (key) => (
      <p>
        The key ending in <code>…{key.last4}</code> is removed from the service; it stays valid at
        the provider until you revoke it there.
        {key.agents.length > 0 ? ` ${inUseWords(key.agents)}` : ''}
      </p>
    ),
    confirm: 'Delete key',
    working: 'Deleting…',
    perform: async (key) => {
      try {
        await unwrap(
          session.api.DELETE('/api/v1/model-keys/{id}', { params: { path: { id: key.id } } }),
        );
      } catch (error) {
        throw modelKeyFailure(error, key.provider);
      }
      reload(`Model key “${modelKeyTitle(key)}” deleted.`);
    },
    refusalDetails: (failure) => <BlockingAgents failure={failure} />,
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
          <p>
            No model keys yet: every agent answers with the service's own model. Add a provider's
            key with one of the forms below, then choose it in an agent's form.
          </p>
        ) : null}
        {loaded && loaded.model_keys.length > 0 ? (
          <ListTable
            class="keys-table"
            caption={`The organization's model keys (${formatNumber(loaded.total)})`}
            rows={loaded.model_keys}
            rowKey={(key) => key.id}
            rowName={modelKeyTitle}
            header={{ heading: 'Name', class: 'keys-table__name', cell: modelKeyTitle }}
            columns={MODEL_KEY_COLUMNS}
            actions={[{ label: 'Delete', danger: true, confirm: remove }]}
            onAction={() => {
              said.value = null;
            }}
          />
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
    </>
  );
}
