import type { components } from '../../api/schema';

type ModelChoice = components['schemas']['ModelChoice'];

/** The model select's value that opens the free-text "Model name" field. */
export const ANOTHER_MODEL = '__another__';

export interface ModelOption {
  readonly value: string;
  readonly label: string;
  /** The option the agent has now. */
  readonly selected: boolean;
}

/** What the offline model is, in the words the form shows beside it. */
const OFFLINE_LABEL = 'offline-extractive: quotes the passages that answer best, no model provider';

/**
 * The models a choice offers, the agent's own first selected. A stored model
 * the list does not hold is kept: as "Another model" where names may be typed,
 * else as itself, marked, so opening the form never changes the agent
 * silently and saving it shows the service's refusal.
 */
export function modelOptions(choice: ModelChoice | null, stored: string | null): ModelOption[] {
  if (!choice) return [];
  const options: ModelOption[] = choice.models.map((model) => ({
    value: model,
    label: model === 'offline-extractive' ? OFFLINE_LABEL : model,
    selected: model === stored,
  }));
  const unlisted = stored !== null && !choice.models.includes(stored);
  if (unlisted && !choice.other_models) {
    options.push({ value: stored, label: `${stored} (cannot answer here)`, selected: true });
  }
  if (choice.other_models) {
    options.push({ value: ANOTHER_MODEL, label: 'Another model…', selected: unlisted });
  }
  return options;
}

/** What answering with this choice means, for the hint under the model. */
export function modelHint(choice: ModelChoice): string {
  if (choice.model_key_id !== null) {
    return choice.provider === 'custom'
      ? `Answers with the organization's key “${choice.label}” at its own endpoint: type the model name the endpoint serves.`
      : `Answers with the organization's ${choice.provider} key “${choice.label}”, billed to it; another of the provider's models can be typed.`;
  }
  switch (choice.provider) {
    case 'offline':
      return 'This service has no model provider, so its agents answer with offline-extractive. For a hosted model, an administrator adds a model key (Settings, Model keys).';
    case 'bedrock':
      return `This service answers through Amazon Bedrock with ${choice.models[1] ?? 'its model'}, or offline with offline-extractive.`;
    case 'openai_compatible':
      return 'This service answers through an OpenAI-compatible server: type a model name it serves, or choose offline-extractive.';
    default:
      return "This service answers with OpenAI's models, or offline with offline-extractive; another of OpenAI's models can be typed.";
  }
}

/** The model the form's fields name: the chosen one, or the typed name. */
export function chosenModel(form: FormData): string {
  const model = String(form.get('model') ?? '');
  return (model === ANOTHER_MODEL ? String(form.get('model_name') ?? '') : model).trim();
}
