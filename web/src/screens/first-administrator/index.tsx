import { useSignal } from '@preact/signals';
import { ApiError } from '../../api/api-error';
import { ErrorNotice } from '../../components/error-notice';
import { NewPasswordFields, newPasswordOf } from '../../components/new-password-fields';
import { useApp } from '../../state/app-context';

/**
 * P228: on the machine itself, while the organization has no user, the
 * person who started the service makes the administrator here and is
 * signed in. The page is gone for good once anyone exists.
 */
export default function FirstAdministrator() {
  const { session } = useApp();
  const pending = useSignal(false);
  const failure = useSignal<unknown>(null);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const password = newPasswordOf(formElement);
    if (password === null) return;
    pending.value = true;
    failure.value = null;
    try {
      await session.createAdministrator({
        email: String(form.get('email')),
        name: String(form.get('name')),
        password,
      });
    } catch (error) {
      failure.value = error;
      // Someone else finished first: the page is gone, and sign-in takes its place.
      if (error instanceof ApiError && (error.status === 409 || error.status === 404)) {
        await session.load().catch(() => undefined);
      }
    } finally {
      pending.value = false;
    }
  };

  return (
    <main class="public-page" id="main">
      <section class="public-page__card" aria-labelledby="setup-heading">
        <p class="public-page__product">Agent Query Service</p>
        <h1 id="setup-heading">Create the administrator</h1>
        <p>
          Nobody can sign in to this service yet. Make the first administrator of its organization:
          they can then invite everyone else. This page is offered only on this machine, and only
          once.
        </p>
        <form class="form" onSubmit={(event) => void submit(event)}>
          <label for="setup-email">Email</label>
          <input
            id="setup-email"
            name="email"
            type="email"
            autoComplete="email"
            required
            maxLength={254}
          />
          <label for="setup-name">Name</label>
          <input
            id="setup-name"
            name="name"
            type="text"
            autoComplete="name"
            required
            maxLength={200}
          />
          <NewPasswordFields idPrefix="setup" label="Password" repeatLabel="Confirm password" />
          <div class="form__actions">
            <button type="submit" class="button button--primary" disabled={pending.value}>
              Create the administrator
            </button>
          </div>
        </form>
        {failure.value ? <ErrorNotice error={failure.value} /> : null}
      </section>
    </main>
  );
}
