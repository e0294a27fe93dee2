import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import type { Role } from '../../../state/roles';
import { type Invitation, ROLE_CHOICES, STATUS_WORDS, type UserView } from '../people';
import { InvitationLink } from './invitation-link';

/**
 * One person, managed in a dialog: their role; deactivating
 * (asked first) or reactivating; a new invitation while they are invited;
 * signing them out everywhere. An administrator's own row offers none of
 * the changes the service refuses to make to oneself, and says why.
 */
export function ManageUser({
  user,
  self,
  onClose,
  onChanged,
}: {
  readonly user: UserView | null;
  readonly self: boolean;
  readonly onClose: () => void;
  readonly onChanged: (user: UserView | null) => void;
}) {
  return (
    <Dialog
      open={user !== null}
      onClose={onClose}
      labelledBy="manage-user-heading"
      class="people-dialog"
    >
      {user ? (
        <ManageUserBody
          key={user.id}
          user={user}
          self={self}
          onClose={onClose}
          onChanged={onChanged}
        />
      ) : null}
    </Dialog>
  );
}

function ManageUserBody({
  user,
  self,
  onClose,
  onChanged,
}: {
  readonly user: UserView;
  readonly self: boolean;
  readonly onClose: () => void;
  readonly onChanged: (user: UserView | null) => void;
}) {
  const { session } = useApp();
  const path = { params: { path: { id: user.id } } };
  const done = useSignal<string | null>(null);
  const confirming = useSignal(false);
  const invitation = useSignal<Invitation | null>(null);

  const changeRole = useAction(async (role: Role) => {
    const updated = await unwrap(
      session.api.PUT('/api/v1/users/{id}', { ...path, body: { role } }),
    );
    done.value = `${updated.name}’s role is now ${updated.role}.`;
    onChanged(updated);
  });
  const deactivate = useAction(async () => {
    await unwrap(session.api.DELETE('/api/v1/users/{id}', path));
    confirming.value = false;
    done.value = `${user.name} is deactivated: their sessions have ended and they cannot sign in.`;
    onChanged({ ...user, status: 'deactivated' });
  });
  const reactivate = useAction(async () => {
    const updated = await unwrap(
      session.api.PUT('/api/v1/users/{id}', { ...path, body: { status: 'active' } }),
    );
    done.value = `${updated.name} is active again and can sign in.`;
    onChanged(updated);
  });
  const reinvite = useAction(async () => {
    invitation.value = await unwrap(session.api.POST('/api/v1/users/{id}/invitation', path));
    done.value = 'A new invitation is made; the earlier link no longer works.';
  });
  const signOut = useAction(async () => {
    await unwrap(session.api.POST('/api/v1/users/{id}/sessions/revoke', path));
    done.value = `Every session of ${user.name} has ended; they can sign in again.`;
  });
  const start = () => {
    done.value = null;
    for (const action of [changeRole, deactivate, reactivate, reinvite, signOut]) action.reset();
  };

  return (
    <>
      <h2 id="manage-user-heading">{user.name}</h2>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
        <dt>Status</dt>
        <dd>{STATUS_WORDS[user.status]}</dd>
        <dt>Last sign-in</dt>
        <dd>{user.last_login_at ? formatDateTime(user.last_login_at) : 'Never'}</dd>
      </dl>
      {self ? (
        <p class="notice">
          This is you. You cannot change your own role or deactivate yourself, so the organization
          always keeps the administrator who acts; another administrator can.
        </p>
      ) : (
        <>
          <form
            class="form"
            onSubmit={(event) => {
              event.preventDefault();
              start();
              const role = String(new FormData(event.currentTarget).get('role')) as Role;
              void changeRole.run(role);
            }}
          >
            <label for="manage-role">Role</label>
            <select id="manage-role" name="role" class="people-select" defaultValue={user.role}>
              {ROLE_CHOICES.map(([role, words]) => (
                <option key={role} value={role}>
                  {words}
                </option>
              ))}
            </select>
            <div class="form__actions">
              <button type="submit" class="button" disabled={changeRole.pending.value}>
                Change role
              </button>
            </div>
            {changeRole.failure.value ? <ErrorNotice error={changeRole.failure.value} /> : null}
          </form>
          <h3>Access</h3>
          <div class="form__actions">
            {user.status === 'active' ? (
              <>
                <button
                  type="button"
                  class="button"
                  disabled={signOut.pending.value}
                  onClick={() => {
                    start();
                    void signOut.run();
                  }}
                >
                  Sign out everywhere
                </button>
                <button
                  type="button"
                  class="button button--danger"
                  onClick={() => {
                    start();
                    confirming.value = true;
                  }}
                >
                  Deactivate
                </button>
              </>
            ) : null}
            {user.status === 'deactivated' ? (
              <button
                type="button"
                class="button"
                disabled={reactivate.pending.value}
                onClick={() => {
                  start();
                  void reactivate.run();
                }}
              >
                Reactivate
              </button>
            ) : null}
            {user.status === 'invited' ? (
              <button
                type="button"
                class="button"
                disabled={reinvite.pending.value}
                onClick={() => {
                  start();
                  void reinvite.run();
                }}
              >
                Send a new invitation
              </button>
            ) : null}
          </div>
          {confirming.value ? (
            <div class="notice people-confirm">
              <p id="deactivate-question">
                Deactivate {user.name}? Every session of theirs ends at once and they cannot sign in
                until reactivated. Their history stays.
              </p>
              <div class="form__actions">
                <button
                  type="button"
                  class="button button--danger"
                  disabled={deactivate.pending.value}
                  onClick={() => void deactivate.run()}
                >
                  Deactivate {user.name}
                </button>
                <button
                  type="button"
                  class="button"
                  onClick={() => {
                    confirming.value = false;
                  }}
                >
                  Keep {user.name} active
                </button>
              </div>
            </div>
          ) : null}
          {[deactivate, reactivate, reinvite, signOut].map((action, index) =>
            action.failure.value ? <ErrorNotice key={index} error={action.failure.value} /> : null,
          )}
        </>
      )}
      {done.value ? (
        <p class="notice people-done" role="status">
          {done.value}
        </p>
      ) : null}
      {invitation.value ? (
        <InvitationLink
          email={user.email}
          url={invitation.value.invitation_url}
          expiresAt={invitation.value.expires_at}
        />
      ) : null}
      <div class="form__actions">
        <button type="button" class="button" onClick={onClose}>
          Close
        </button>
      </div>
    </>
  );
}
