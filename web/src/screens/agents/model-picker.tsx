import { useSignal } from '@preact/signals';
import type { ModelChoice } from './agents-api';
import { ANOTHER_MODEL, modelHint, modelOptions } from './model-choices';

/**
 * Where the agent's answers come from and which model writes them, chosen
 * from what the service and the organization's model keys can serve
 * (`GET /api/v1/models`). Only an administrator chooses the model key (the
 * source); anyone else keeps the agent's. A name the list does not hold can
 * be typed only where the provider decides what exists (OpenAI, a key);
 * the API checks the model again when the agent is saved.
 */
export function ModelPicker({
  choices,
  model,
  modelKeyId,
  mayChooseKey,
}: {
  readonly choices: readonly ModelChoice[];
  readonly model: string | null;
  readonly modelKeyId: string | null;
  readonly mayChooseKey: boolean;
}) {
  const source = useSignal(modelKeyId ?? '');
  const choice =
    choices.find((entry) => (entry.model_key_id ?? '') === source.value) ?? choices[0] ?? null;
  // The stored model stays chosen while its source is; another source starts at its first model.
  const stored = (choice?.model_key_id ?? null) === modelKeyId ? model : null;
  const options = modelOptions(choice, stored);
  const picked = useSignal<string | null>(null);
  const selected =
    picked.value !== null && options.some((option) => option.value === picked.value)
      ? picked.value
      : (options.find((option) => option.selected)?.value ?? options[0]?.value ?? '');

  return (
    <>
      {mayChooseKey ? (
        <>
          <label for="agent-model-key">Model key</label>
          <select
            id="agent-model-key"
            name="model_key_id"
            value={source.value}
            aria-describedby="agent-model-key-hint"
            onChange={(event) => {
              source.value = event.currentTarget.value;
              picked.value = null;
            }}
          >
            {choices.map((entry) => (
              <option key={entry.model_key_id ?? ''} value={entry.model_key_id ?? ''}>
                {entry.model_key_id === null
                  ? `None: ${entry.label}`
                  : `${entry.label} (${entry.provider})`}
              </option>
            ))}
          </select>
          <p id="agent-model-key-hint" class="form__hint">
            The organization's own provider key: the agent's answers are billed to it. Keys are
            added in Settings, Model keys.
          </p>
        </>
      ) : null}

      <label for="agent-model">Model</label>
      <select
        id="agent-model"
        name="model"
        value={selected}
        aria-describedby="agent-model-hint"
        onChange={(event) => {
          picked.value = event.currentTarget.value;
        }}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {selected === ANOTHER_MODEL ? (
        <>
          <label for="agent-model-name">Model name</label>
          <input
            id="agent-model-name"
            name="model_name"
            required
            maxLength={200}
            defaultValue={stored && !choice?.models.includes(stored) ? stored : ''}
            autoComplete="off"
            spellcheck={false}
          />
        </>
      ) : null}
      <p id="agent-model-hint" class="form__hint">
        {choice ? modelHint(choice) : ''}
      </p>
    </>
  );
}
