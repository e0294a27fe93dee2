import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../api/api-error';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { formatNumber } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  AGENT_FORM_DEFAULTS,
  type Agent,
  agentInput,
  agentPermissions,
  FIELD_LABELS,
  STRATEGIES,
} from './agents.state';
import {
  allModelChoices,
  type DataSource,
  type ModelChoice,
  sourcesWithKnowledgeBase,
} from './agents-api';
import { KnowledgeBaseChoice } from './knowledge-base-choice';
import { ModelPicker } from './model-picker';

/**
 * Creates an agent (`agentId` null) or edits one, every field of the API's
 * Agent: name, the knowledge base and data sources (chosen from the
 * organization's), strategy, model (from what the service and the model
 * keys can serve), temperature, max tokens, system prompt, status, and —
 * for an administrator — the model key.
 */
export function AgentForm({ agentId }: { readonly agentId: string | null }) {
  const { session } = useApp();
  const may = agentPermissions(session.me.value);
  const agent = useLoad(
    (signal) =>
      agentId
        ? unwrap(
            session.api.GET('/api/v1/agents/{id}', { params: { path: { id: agentId } }, signal }),
          )
        : Promise.resolve(null),
    [agentId],
  );
  const sources = useLoad((signal) => sourcesWithKnowledgeBase(session.api, signal), []);
  const models = useLoad((signal) => allModelChoices(session.api, signal), []);
  const allowed = agentId ? may.change : may.create;
  const title = agentId ? 'Edit agent' : 'New agent';

  if (!allowed) {
    return (
      <section class="screen">
        <h1>{title}</h1>
        <p>
          {agentId || !may.change
            ? 'Your role does not allow changing agents (it needs configure).'
            : 'Your groups restrict the agents you may use, so you cannot create agents; ask an administrator.'}{' '}
          <a href={agentId ? `/agents/${agentId}` : '/agents'}>Back</a>
        </p>
      </section>
    );
  }
  const loadError = agent.error.value ?? sources.error.value ?? models.error.value;
  const ready = !agent.loading.value && !sources.loading.value && !models.loading.value;
  return (
    <section class="screen" aria-labelledby="agent-form-heading">
      <p class="breadcrumb">
        <a href="/agents">Agents</a>
        {agent.data.value ? (
          <>
            {' / '}
            <a href={`/agents/${agent.data.value.id}`}>{agent.data.value.name}</a>
          </>
        ) : null}
      </p>
      <h1 id="agent-form-heading">{title}</h1>
      {loadError ? <ErrorNotice error={loadError} /> : null}
      {!ready && !loadError ? <p role="status">Loading…</p> : null}
      {ready && !loadError ? (
        <AgentFields
          agent={agent.data.value}
          dataSources={sources.data.value ?? []}
          modelChoices={models.data.value ?? []}
          mayChooseKey={may.modelKeys}
        />
      ) : null}
    </section>
  );
}

function AgentFields({
  agent,
  dataSources,
  modelChoices,
  mayChooseKey,
}: {
  readonly agent: Agent | null;
  readonly dataSources: readonly DataSource[];
  readonly modelChoices: readonly ModelChoice[];
  /** Only an administrator chooses the model key (the organization's money). */
  readonly mayChooseKey: boolean;
}) {
  const { session } = useApp();
  const location = useLocation();
  const chosen = new Set(agent?.data_source_ids ?? []);
  const knowledgeBase = dataSources.find((source) => source.type === 'kb') ?? null;
  const otherSources = dataSources.filter((source) => source.type !== 'kb');

  const save = useAction(async (input: ReturnType<typeof agentInput>) => {
    const saved = agent
      ? await unwrap(
          session.api.PUT('/api/v1/agents/{id}', {
            params: { path: { id: agent.id } },
            body: input,
          }),
        )
      : await unwrap(session.api.POST('/api/v1/agents', { body: input }));
    location.route(`/agents/${saved.id}`);
  });

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void save.run(agentInput(new FormData(event.currentTarget as HTMLFormElement), mayChooseKey));
  };
  const failure = save.failure.value;
  const fields = failure instanceof ApiError ? failure.fields : [];

  return (
    <form class="form agent-form" onSubmit={submit}>
      <label for="agent-name">Name</label>
      <input
        id="agent-name"
        name="name"
        required
        maxLength={200}
        defaultValue={agent?.name ?? ''}
        autoComplete="off"
      />

      {knowledgeBase ? (
        <KnowledgeBaseChoice
          source={knowledgeBase}
          // A new agent answers from the knowledge base unless it is unticked.
          included={agent ? chosen.has(knowledgeBase.id) : true}
        />
      ) : null}

      <fieldset class="choices-list">
        <legend>Data sources</legend>
        {otherSources.length === 0 ? (
          <p class="form__hint">
            The organization has no data sources yet: add a website or files in{' '}
            <a href="/data-sources/new">Data sources</a>, then tick it here.
          </p>
        ) : (
          <ul>
            {otherSources.map((source) => (
              <li key={source.id}>
                <label class="choice">
                  <input
                    type="checkbox"
                    name="data_source_ids"
                    value={source.id}
                    defaultChecked={chosen.has(source.id)}
                  />
                  <span>
                    {source.name}{' '}
                    <span class="choice__detail">
                      ({source.type}, {formatNumber(source.chunks_indexed)}{' '}
                      {source.chunks_indexed === 1 ? 'chunk' : 'chunks'} indexed)
                    </span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
      </fieldset>

      <label for="agent-strategy">Strategy</label>
      <select
        id="agent-strategy"
        name="rag_strategy"
        defaultValue={agent?.rag_strategy ?? AGENT_FORM_DEFAULTS.rag_strategy}
      >
        {STRATEGIES.map((strategy) => (
          <option key={strategy.value} value={strategy.value}>
            {strategy.label}
          </option>
        ))}
      </select>

      <ModelPicker
        choices={modelChoices}
        model={agent?.model ?? null}
        modelKeyId={agent?.model_key_id ?? null}
        mayChooseKey={mayChooseKey}
      />

      <div class="form__row">
        <div class="form__cell">
          <label for="agent-temperature">Temperature</label>
          <input
            id="agent-temperature"
            name="temperature"
            type="number"
            required
            min={0}
            max={2}
            step="any"
            defaultValue={String(agent?.temperature ?? AGENT_FORM_DEFAULTS.temperature)}
          />
        </div>
        <div class="form__cell">
          <label for="agent-max-tokens">Max tokens</label>
          <input
            id="agent-max-tokens"
            name="max_tokens"
            type="number"
            required
            min={1}
            max={32768}
            step={1}
            defaultValue={String(agent?.max_tokens ?? AGENT_FORM_DEFAULTS.max_tokens)}
          />
        </div>
      </div>

      <label for="agent-prompt">System prompt</label>
      <textarea
        id="agent-prompt"
        name="system_prompt"
        rows={6}
        maxLength={20000}
        defaultValue={agent?.system_prompt ?? ''}
        aria-describedby="agent-prompt-hint"
      />
      <p id="agent-prompt-hint" class="form__hint">
        Optional: how the agent should answer (tone, audience, what to refuse).
      </p>

      <label for="agent-status">Status</label>
      <select id="agent-status" name="status" defaultValue={agent?.status ?? 'active'}>
        <option value="active">Active: answers questions</option>
        <option value="disabled">Disabled: refuses questions</option>
      </select>

      {failure ? (
        <div class="form__errors">
          <ErrorNotice error={failure} />
          {fields.length > 0 ? (
            <ul>
              {fields.map((field) => (
                <li key={field.path}>
                  {FIELD_LABELS[field.path.split('.')[0] ?? ''] ?? field.path}: {field.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={save.pending.value}>
          {agent ? 'Save changes' : 'Create agent'}
        </button>
        <a class="button" href={agent ? `/agents/${agent.id}` : '/agents'}>
          Cancel
        </a>
      </div>
    </form>
  );
}
