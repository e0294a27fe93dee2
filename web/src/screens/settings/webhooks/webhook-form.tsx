import { useSignal } from '@preact/signals';
import { ApiError } from '../../../api/api-error';
import type { Action } from '../../../api/use-action';
import { ErrorNotice } from '../../../components/error-notice';
import { EVENT_GROUPS, EVENT_NAMES, unlistedEventMeaning, type Webhook } from './webhooks.state';

export interface WebhookInput {
  readonly url: string;
  readonly description: string | null;
  readonly events: string[];
}

/**
 * A webhook's address, description and events (one checkbox per name the
 * API accepts, by group), for creating and for editing. Inputs are read
 * with FormData on submit (CONSOLE.md §7); the browser checks the URL.
 */
export function WebhookForm({
  idPrefix,
  initial,
  action,
  submitLabel,
  onCancel,
}: {
  readonly idPrefix: string;
  readonly initial: Webhook | null;
  readonly action: Action<[WebhookInput]>;
  readonly submitLabel: string;
  readonly onCancel: () => void;
}) {
  const noEvents = useSignal(false);
  const failure = action.failure.value;
  const fieldError = (path: string) =>
    failure instanceof ApiError
      ? (failure.fields.find((field) => field.path === path)?.message ?? null)
      : null;
  const urlError = fieldError('url');
  // Names subscribed before that the catalog no longer lists are kept, not silently dropped.
  const unlisted = (initial?.events ?? []).filter((name) => !EVENT_NAMES.includes(name));
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const events = data.getAll('events').map(String);
    noEvents.value = events.length === 0;
    if (events.length === 0) return;
    const description = String(data.get('description') ?? '').trim();
    void action.run({
      url: String(data.get('url') ?? '').trim(),
      description: description === '' ? null : description,
      events,
    });
  };
  return (
    <form class="form webhook-form" onSubmit={submit}>
      <label for={`${idPrefix}-url`}>Endpoint URL</label>
      <input
        id={`${idPrefix}-url`}
        name="url"
        type="url"
        required
        maxLength={2048}
        placeholder="https://example.com/hooks/svc"
        defaultValue={initial?.url ?? ''}
        aria-invalid={urlError ? 'true' : undefined}
        aria-describedby={`${idPrefix}-url-hint`}
      />
      <p id={`${idPrefix}-url-hint`} class="form__hint">
        {urlError
          ? `Refused: ${urlError}`
          : 'An https address on the public internet with a valid certificate. The service connects to it when you save.'}
      </p>
      <label for={`${idPrefix}-description`}>Description (optional)</label>
      <input
        id={`${idPrefix}-description`}
        name="description"
        maxLength={500}
        defaultValue={initial?.description ?? ''}
      />
      <fieldset class="event-groups" aria-describedby={`${idPrefix}-events-hint`}>
        <legend>Events</legend>
        <p id={`${idPrefix}-events-hint`} class="form__hint">
          {noEvents.value ? (
            <strong role="alert">Choose at least one event.</strong>
          ) : (
            'Each delivery is a signed POST of the event to the URL.'
          )}
        </p>
        {EVENT_GROUPS.map((group) => (
          <fieldset key={group.label} class="event-group">
            <legend>{group.label}</legend>
            {group.hint ? <p class="form__hint">{group.hint}</p> : null}
            {group.events.map((choice) => (
              <label key={choice.name} class="choice event-choice">
                <input
                  type="checkbox"
                  name="events"
                  value={choice.name}
                  defaultChecked={initial?.events.includes(choice.name) ?? false}
                />
                <span>
                  <code>{choice.name}</code>{' '}
                  <span class="event-choice__meaning">{choice.meaning}</span>
                </span>
              </label>
            ))}
          </fieldset>
        ))}
        {unlisted.map((name) => (
          <label key={name} class="choice event-choice">
            <input type="checkbox" name="events" value={name} defaultChecked />
            <span>
              <code>{name}</code>{' '}
              <span class="event-choice__meaning">{unlistedEventMeaning(name)}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {failure ? <ErrorNotice error={failure} /> : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={action.pending.value}>
          {action.pending.value ? 'Saving…' : submitLabel}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
