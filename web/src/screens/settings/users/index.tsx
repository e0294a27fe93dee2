import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { type Column, ListTable } from '../../../components/list-table';
import { formatDateTime, formatNumber, formatRelative } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { pageOf, STATUS_WORDS, type UserView } from '../people';
import { InviteUser } from './invite-user';
import { ManageUser } from './manage-user';
import '../people.css';
import { Pager } from '../../../components/pager';

const PAGE_SIZE = 20;
const USERS_PATH = '/settings/users';

const USER_COLUMNS: readonly Column<UserView>[] = [
  { heading: 'Email', cell: (user) => user.email },
  { heading: 'Role', cell: (user) => user.role },
  {
    heading: 'Status',
    cell: (user) => (
      <span class="people-status" data-status={user.status}>
        {STATUS_WORDS[user.status]}
      </span>
    ),
  },
  {
    heading: 'Last sign-in',
    cell: (user) =>
      user.last_login_at ? (
        <time dateTime={user.last_login_at} title={formatDateTime(user.last_login_at)}>
          {formatRelative(user.last_login_at)}
        </time>
      ) : (
        'Never'
      ),
  },
];

function pagePath(page: number): string {
  return page > 1 ? `${USERS_PATH}?page=${page}` : USERS_PATH;
}

/**
 * The organization's people: 20 a page as the API pages them,
 * newest first, with role, status and last sign-in; "Invite user", and for
 * each person "Manage" (role, deactivation, a new invitation, signing out
 * everywhere).
 */
export default function Users() {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const version = useSignal(0);
  const managing = useSignal<UserView | null>(null);
  const users = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/users', {
          params: {
            query: { limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) },
          },
          signal,
        }),
      ),
    [page, version.value],
  );
  const reload = () => {
    version.value += 1;
  };
  const list = users.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  const myId = session.me.value?.user.id;

  return (
    <section class="panel" aria-labelledby="users-heading">
      <div class="people-toolbar">
        <h2 id="users-heading">Users</h2>
        <InviteUser onInvited={reload} />
      </div>
      {users.error.value ? <ErrorNotice error={users.error.value} /> : null}
      {users.loading.value && !list ? <p role="status">Loading users…</p> : null}
      {list && list.users.length > 0 ? (
        <ListTable
          caption={`${formatNumber(list.total)} ${list.total === 1 ? 'user' : 'users'}, newest first`}
          rows={list.users}
          rowKey={(user) => user.id}
          rowName={(user) => user.name}
          header={{
            heading: 'Name',
            cell: (user) => `${user.name}${user.id === myId ? ' (you)' : ''}`,
          }}
          columns={USER_COLUMNS}
          actions={[
            {
              label: 'Manage',
              opensDialog: true,
              open: (user) => {
                managing.value = user;
              },
            },
          ]}
        />
      ) : null}
      <Pager label="Pages of users" page={page} pages={pages} hrefOf={pagePath} />
      <ManageUser
        user={managing.value}
        self={managing.value?.id === myId}
        onClose={() => {
          managing.value = null;
        }}
        onChanged={(changed) => {
          if (managing.value && changed) managing.value = changed;
          reload();
        }}
      />
    </section>
  );
}
