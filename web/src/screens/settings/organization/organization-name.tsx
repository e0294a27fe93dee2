import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import type { OrganizationView } from './types';

/** The service's bound on a name (ORGANIZATION_LIMITS.nameMax). */
const NAME_MAX = 200;

/**
 * The organization's name as text with "Rename"; renaming edits it in
 * place ("Name", "Save name", "Cancel"). A refusal naming `name` is said
 * under the field; any other failure as a notice.
 */
export function OrganizationName({
  organization,
  onSaved,
}: {
  readonly organization: OrganizationView;
  readonly onSaved: (updated: OrganizationView) => void;
}) {
  const { session } = useApp();
  const editing = useSignal(false);
  const input = useRef<HTMLInputElement>(null);
  const rename = useRef<HTMLButtonElement>(null);
  const save = useAction(async (name: string) => {
    const updated = await unwrap(
      session.api.PUT('/api/v1/organizations/{id}', {
        params: { path: { id: organization.id } },
        body: { name },
      }),
    );
    onSaved(updated);
  });
  useEffect(() => {
    if (editing.value) input.current?.focus();
  }, [editing.value]);
  const stop = () => {
    editing.value = false;
    save.reset();
    setTimeout(() => rename.current?.focus());
  };
  if (!editing.value) {
    return (
      <span class="people-inline">
        <span>{organization.name}</span>
        <button
          type="button"
          class="button button--small"
          ref={rename}
          onClick={() => {
            editing.value = true;
          }}
        >
          Rename
        </button>
      </span>
    );
  }
  const failure = save.failure.value;
  const nameProblem =
    failure instanceof ApiError ? failure.fields.find((field) => field.path === 'name') : undefined;
  return (
    <form
      class="form people-name-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
        if (await save.run(name)) stop();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') stop();
      }}
    >
      <label for="organization-name">Name</label>
      <input
        id="organization-name"
        name="name"
        ref={input}
        required
        maxLength={NAME_MAX}
        defaultValue={organization.name}
        autoComplete="organization"
        aria-invalid={nameProblem ? 'true' : undefined}
        aria-describedby={nameProblem ? 'organization-name-problem' : undefined}
      />
      {nameProblem ? (
        <p id="organization-name-problem" class="people-field-problem">
          The name {nameProblem.message}.
        </p>
      ) : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={save.pending.value}>
          {save.pending.value ? 'Saving…' : 'Save name'}
        </button>
        <button type="button" class="button" onClick={stop}>
          Cancel
        </button>
      </div>
      {failure && !nameProblem ? <ErrorNotice error={failure} /> : null}
    </form>
  );
}
