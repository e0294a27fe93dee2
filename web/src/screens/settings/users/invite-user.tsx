import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import type { Role } from '../../../state/roles';
import { fieldProblem, onlyFields, ROLE_CHOICES } from '../people';
import { InvitationLink } from './invitation-link';

/** The service's bounds (USER_LIMITS). */
const EMAIL_MAX = 254;
const NAME_MAX = 200;

interface Invited {
  readonly email: string;
  readonly url: string;
  readonly expiresAt: string;
}

/**
 * "Invite user": a dialog with "Email", "Name" and "Role" that creates the
 * user without a password. The answer's invitation link is shown to
 * copy, and said to have gone out by mail too. A taken email (409) or a
 * refused field is said under that field.
 */
export function InviteUser({ onInvited }: { readonly onInvited: () => void }) {
  const { session } = useApp();
  const open = useSignal(false);
  const invited = useSignal<Invited | null>(null);
  const invite = useAction(async (body: { email: string; name: string; role: Role }) => {
    const created = await unwrap(session.api.POST('/api/v1/users', { body }));
    invited.value = {
      email: created.email,
      url: created.invitation.invitation_url,
      expiresAt: created.invitation.expires_at,
    };
    onInvited();
  });
  const close = () => {
    open.value = false;
    invited.value = null;
    invite.reset();
  };
  const failure = invite.failure.value;
  const emailProblem = fieldProblem(failure, 'email');
  const nameProblem = fieldProblem(failure, 'name');
  const roleProblem = fieldProblem(failure, 'role');
  return (
    <>
      <button
        type="button"
        class="button button--primary"
        aria-haspopup="dialog"
        onClick={() => {
          open.value = true;
        }}
      >
        Invite user
      </button>
      <Dialog open={open.value} onClose={close} labelledBy="invite-heading" class="people-dialog">
        {invited.value ? (
          <>
            <h2 id="invite-heading">Invitation for {invited.value.email}</h2>
            <InvitationLink
              email={invited.value.email}
              url={invited.value.url}
              expiresAt={invited.value.expiresAt}
            />
            <div class="form__actions">
              <button type="button" class="button button--primary" onClick={close}>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <h2 id="invite-heading">Invite user</h2>
            <p>
              They get a link to choose a password; until then they are “Invited” and cannot sign
              in.
            </p>
            <form
              class="form"
              onSubmit={(event) => {
                event.preventDefault();
                const data = new FormData(event.currentTarget);
                void invite.run({
                  email: String(data.get('email') ?? '').trim(),
                  name: String(data.get('name') ?? '').trim(),
                  role: String(data.get('role') ?? 'readonly') as Role,
                });
              }}
            >
              <label for="invite-email">Email</label>
              <input
                id="invite-email"
                name="email"
                type="email"
                required
                maxLength={EMAIL_MAX}
                autoComplete="off"
                aria-invalid={emailProblem ? 'true' : undefined}
                aria-describedby={emailProblem ? 'invite-email-problem' : undefined}
              />
              {emailProblem ? (
                <p id="invite-email-problem" class="people-field-problem">
                  This email is {emailProblem}.
                </p>
              ) : null}
              <label for="invite-name">Name</label>
              <input
                id="invite-name"
                name="name"
                required
                maxLength={NAME_MAX}
                autoComplete="off"
                aria-invalid={nameProblem ? 'true' : undefined}
                aria-describedby={nameProblem ? 'invite-name-problem' : undefined}
              />
              {nameProblem ? (
                <p id="invite-name-problem" class="people-field-problem">
                  The name {nameProblem}.
                </p>
              ) : null}
              <label for="invite-role">Role</label>
              <select
                id="invite-role"
                name="role"
                class="people-select"
                aria-invalid={roleProblem ? 'true' : undefined}
              >
                {ROLE_CHOICES.map(([role, words]) => (
                  <option key={role} value={role}>
                    {words}
                  </option>
                ))}
              </select>
              {roleProblem ? <p class="people-field-problem">The role {roleProblem}.</p> : null}
              {failure && !onlyFields(failure, ['email', 'name', 'role']) ? (
                <ErrorNotice error={failure} />
              ) : null}
              <div class="form__actions">
                <button
                  type="submit"
                  class="button button--primary"
                  disabled={invite.pending.value}
                >
                  {invite.pending.value ? 'Inviting…' : 'Send invitation'}
                </button>
                <button type="button" class="button" onClick={close}>
                  Cancel
                </button>
              </div>
            </form>
          </>
        )}
      </Dialog>
    </>
  );
}
