import { useSignal } from '@preact/signals';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { CopyButton } from '../../../components/copy-button';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { chosenScopes, type Environment, environmentWords, SCOPE_CHOICES } from './api-keys.state';

/**
 * "Create API key": the dialog around the form. Its content exists only
 * while it is open (components/dialog.tsx renders children only then), and
 * the new key's value lives in that content's own state, so closing the
 * dialog (Done, Esc) drops the value with it: reopening starts empty.
 */
export function CreateKeyDialog({
  open,
  environment,
  onCreated,
  onClose,
}: {
  readonly open: boolean;
  readonly environment: Environment;
  /** Told the new key's name only: the value never leaves the dialog. */
  readonly onCreated: (name: string) => void;
  readonly onClose: () => void;
}) {
  return (
    <Dialog open={open} labelledBy="create-key-heading" onClose={onClose}>
      <CreateKey environment={environment} onCreated={onCreated} onClose={onClose} />
    </Dialog>
  );
}

interface Created {
  readonly name: string;
  readonly key: string;
}

function CreateKey({
  environment,
  onCreated,
  onClose,
}: {
  readonly environment: Environment;
  readonly onCreated: (name: string) => void;
  readonly onClose: () => void;
}) {
  const { session } = useApp();
  const created = useSignal<Created | null>(null);
  const problem = useSignal<string | null>(null);
  const create = useAction(
    async (name: string, scopes: ReturnType<typeof chosenScopes>['scopes']) => {
      const answer = await unwrap(
        session.api.POST('/api/v1/keys', { body: { name, scopes, environment } }),
      );
      created.value = { name: answer.name, key: answer.key };
      onCreated(answer.name);
    },
  );
  const words = environmentWords(environment);

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const { scopes, problem: missing } = chosenScopes(form);
    problem.value = missing;
    if (missing) return;
    void create.run(String(form.get('name') ?? '').trim(), scopes);
  };

  const shown = created.value;
  if (shown) {
    return (
      <div class="key-shown">
        <h2 id="create-key-heading">API key “{shown.name}” created</h2>
        <p class="key-warning" role="alert">
          Copy the key now and keep it where your script reads its secrets: it will not be shown
          again. If it is lost, revoke it and create another.
        </p>
        <label class="key-shown__label" for="created-key">
          Your new API key
        </label>
        <div class="key-shown__value">
          <input
            id="created-key"
            class="key-shown__input"
            readOnly
            value={shown.key}
            spellcheck={false}
            autoComplete="off"
            onFocus={(event) => event.currentTarget.select()}
          />
          <CopyButton value={shown.key} label="Copy key" />
        </div>
        <div class="form__actions">
          <button type="button" class="button button--primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }

  const fields = create.failure.value instanceof ApiError ? create.failure.value.fields : [];
  const nameProblem = fields.find((field) => field.path === 'name');
  return (
    <form class="form key-form" onSubmit={submit}>
      <h2 id="create-key-heading">Create API key</h2>
      <label for="key-name">Name</label>
      <input
        id="key-name"
        name="name"
        required
        maxLength={200}
        autoComplete="off"
        aria-describedby="key-name-hint"
        {...(nameProblem ? { 'aria-invalid': 'true' } : {})}
      />
      <p id="key-name-hint" class="form__hint">
        Name it after the script or application that will use it.
      </p>
      <fieldset
        class="key-form__scopes"
        aria-describedby={problem.value ? 'scopes-problem' : undefined}
      >
        <legend>Scopes</legend>
        {SCOPE_CHOICES.map((choice) => (
          <label key={choice.scope} class="choice key-form__scope">
            <input type="checkbox" name="scopes" value={choice.scope} />
            <span>
              {choice.scope}
              <span class="form__hint"> — {choice.permits}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {problem.value ? (
        <p id="scopes-problem" class="field-problem" role="alert">
          {problem.value}
        </p>
      ) : null}
      <label for="key-environment">Environment</label>
      <input
        id="key-environment"
        readOnly
        value={words.label}
        aria-describedby="key-environment-hint"
      />
      <p id="key-environment-hint" class="form__hint">
        Set by this deployment: the key will start with <code>{words.prefix}</code> and works only
        here.
      </p>
      {create.failure.value ? <ErrorNotice error={create.failure.value} /> : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={create.pending.value}>
          {create.pending.value ? 'Creating…' : 'Create key'}
        </button>
        <button type="button" class="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
