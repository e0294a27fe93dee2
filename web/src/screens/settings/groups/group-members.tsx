import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { allUsers, type GroupView, STATUS_WORDS } from '../people';

/** Members are read 200 at a time, up to this many pages (P83 bounds a user at 100 groups, not a group's members). */
const PAGE = 200;
const PAGES = 10;

/**
 * A group's members: each with "Remove", and "Add member" choosing
 * from the organization's users who are not in it yet. Changes apply at the
 * member's next request.
 */
export function GroupMembers({ group }: { readonly group: GroupView }) {
  const { session } = useApp();
  const version = useSignal(0);
  const path = { id: group.id };
  const members = useLoad(
    async (signal) => {
      const all = [];
      for (let page = 0; page < PAGES; page += 1) {
        const list = await unwrap(
          session.api.GET('/api/v1/groups/{id}/members', {
            params: { path, query: { limit: String(PAGE), offset: String(page * PAGE) } },
            signal,
          }),
        );
        all.push(...list.members);
        if (list.members.length < PAGE || all.length >= list.total) break;
      }
      return all.sort((a, b) => a.name.localeCompare(b.name));
    },
    [group.id, version.value],
  );
  const users = useLoad((signal) => allUsers(session.api, signal), [group.id]);
  const done = useSignal<string | null>(null);
  const add = useAction(async (userId: string, name: string) => {
    await unwrap(
      session.api.PUT('/api/v1/groups/{id}/members/{user_id}', {
        params: { path: { id: group.id, user_id: userId } },
      }),
    );
    done.value = `${name} is now a member of ${group.name}.`;
    version.value += 1;
  });
  const remove = useAction(async (userId: string, name: string) => {
    await unwrap(
      session.api.DELETE('/api/v1/groups/{id}/members/{user_id}', {
        params: { path: { id: group.id, user_id: userId } },
      }),
    );
    done.value = `${name} is no longer a member of ${group.name}.`;
    version.value += 1;
    setTimeout(() => document.getElementById('member-user')?.focus());
  });

  const current = members.data.value;
  const memberIds = new Set((current ?? []).map((member) => member.id));
  const candidates = (users.data.value ?? []).filter((user) => !memberIds.has(user.id));
  return (
    <>
      {members.error.value ? <ErrorNotice error={members.error.value} /> : null}
      {current === null && members.loading.value ? <p role="status">Loading members…</p> : null}
      {current && current.length === 0 ? <p>No members yet.</p> : null}
      {current && current.length > 0 ? (
        <ul class="people-members" aria-label={`Members of ${group.name}`}>
          {current.map((member) => (
            <li key={member.id}>
              <span>
                {member.name} <span class="people-muted">{member.email}</span>
                {member.status !== 'active' ? ` (${STATUS_WORDS[member.status]})` : ''}
              </span>
              <button
                type="button"
                class="button button--small"
                aria-label={`Remove ${member.name}`}
                disabled={remove.pending.value}
                onClick={() => {
                  done.value = null;
                  add.reset();
                  void remove.run(member.id, member.name);
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {users.error.value ? <ErrorNotice error={users.error.value} /> : null}
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          const id = String(new FormData(event.currentTarget).get('user_id') ?? '');
          const user = candidates.find((candidate) => candidate.id === id);
          if (!user) return;
          done.value = null;
          remove.reset();
          void add.run(user.id, user.name);
        }}
      >
        <label for="member-user">Add member</label>
        <div class="people-inline">
          <select id="member-user" name="user_id" class="people-select" required>
            <option value="">Choose a person…</option>
            {candidates.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name} ({user.email})
              </option>
            ))}
          </select>
          <button type="submit" class="button" disabled={add.pending.value}>
            Add
          </button>
        </div>
      </form>
      {done.value ? (
        <p class="notice people-done" role="status">
          {done.value}
        </p>
      ) : null}
      {add.failure.value ? <ErrorNotice error={add.failure.value} /> : null}
      {remove.failure.value ? <ErrorNotice error={remove.failure.value} /> : null}
    </>
  );
}
