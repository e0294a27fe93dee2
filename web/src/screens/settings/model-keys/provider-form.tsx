import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { type ModelKey, modelKeyFailure, PROVIDERS, type Provider } from './model-keys.state';

/**
 * One provider's "add a key" form: an optional name, the key (a
 * password field: it is typed once and never shown) and, for an
 * OpenAI-compatible server, its endpoint. The service checks the key with
 * the provider before storing it; a refusal shows the provider's
 * verdict. Once saved, the form is emptied: the key leaves the page.
 */
export function ProviderForm({
  provider,
  onSaved,
}: {
  readonly provider: Provider;
  readonly onSaved: (key: ModelKey) => void;
}) {
  const { session } = useApp();
  const entry = PROVIDERS.find((candidate) => candidate.provider === provider);
  const label = entry?.label ?? provider;
  const id = `model-key-${provider}`;
  const custom = provider === 'custom';
  const saved = useSignal<string | null>(null);
  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const name = text('name');
    try {
      const created = await unwrap(
        session.api.POST('/api/v1/model-keys', {
          body: {
            provider,
            key: text('key'),
            ...(name ? { name } : {}),
            ...(custom ? { endpoint: text('endpoint') } : {}),
          },
        }),
      );
      form.reset();
      saved.value = `Saved: the key ending in …${created.last4} was accepted by ${label}.`;
      onSaved(created as ModelKey);
    } catch (error) {
      throw modelKeyFailure(error, provider);
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    saved.value = null;
    void save.run(event.currentTarget as HTMLFormElement);
  };

  return (
    <section class="panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{label}</h2>
      <p class="form__hint">{entry?.about}</p>
      <form class="form" onSubmit={submit}>
        {custom ? (
          <>
            <label for={`${id}-endpoint`}>Endpoint URL</label>
            <input
              id={`${id}-endpoint`}
              name="endpoint"
              type="url"
              required
              maxLength={2048}
              placeholder="https://models.example.com/v1"
              aria-describedby={`${id}-endpoint-hint`}
              autoComplete="off"
            />
            <p id={`${id}-endpoint-hint`} class="form__hint">
              Its base address, ending where <code>/models</code> and <code>/chat/completions</code>{' '}
              begin.
            </p>
          </>
        ) : null}
        <label for={`${id}-name`}>Name (optional)</label>
        <input id={`${id}-name`} name="name" maxLength={200} autoComplete="off" />
        <label for={`${id}-key`}>API key</label>
        <input
          id={`${id}-key`}
          name="key"
          type="password"
          required
          minLength={8}
          maxLength={1000}
          pattern="[!-~]+"
          title="The key as the provider issued it, without spaces"
          autoComplete="off"
          spellcheck={false}
        />
        {save.failure.value ? <ErrorNotice error={save.failure.value} /> : null}
        {saved.value ? (
          <p class="notice" role="status">
            {saved.value}
          </p>
        ) : null}
        <div class="form__actions">
          <button type="submit" class="button button--primary" disabled={save.pending.value}>
            {save.pending.value ? `Checking with ${label}…` : `Save ${label} key`}
          </button>
        </div>
      </form>
    </section>
  );
}
