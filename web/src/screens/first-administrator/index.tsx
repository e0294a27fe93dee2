import { ApiError } from '../../api/api-error';
import { useAction } from '../../api/use-action';
import { ErrorNotice } from '../../components/error-notice';
import { NewPasswordFields, newPasswordOf } from '../../components/new-password-fields';
import { useApp } from '../../state/app-context';

/**
 * On the machine itself, while the organization has no user, the
 * person who started the service makes the administrator here and is
 * signed in. The page is gone for good once anyone exists.
 */
export default function FirstAdministrator() {
  const { session } = useApp();
  const create = useAction(
    async (administrator: { email: string; name: string; password: string }) => {
      try {
        await session.createAdministrator(administrator);
      } catch (error) {
        // Someone else finished first: the page is gone, and sign-in takes its place.
        if (error instanceof ApiError && (error.status === 409 || error.status === 404)) {
          await session.load().catch(() => undefined);
        }
        throw error;
      }
    },
  );

  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const password = newPasswordOf(formElement);
    if (password === null) return;
    void create.run({
      email: String(form.get('email')),
      name: String(form.get('name')),
      password,
    });
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
        <form class="form" onSubmit={submit}>
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
            <button type="submit" class="button button--primary" disabled={create.pending.value}>
              Create the administrator
            </button>
          </div>
        </form>
        {create.failure.value ? <ErrorNotice error={create.failure.value} /> : null}
      </section>
    </main>
  );
}
