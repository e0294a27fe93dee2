import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { type AgentChoice, useAgentChoices } from '../../../components/agent-select';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { type Confirmation, ListTable } from '../../../components/list-table';
import { formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { type GroupView, pageOf } from '../people';
import { GroupForm } from './group-form';
import { GroupMembers } from './group-members';
import '../people.css';
import { Pager } from '../../../components/pager';

const PAGE_SIZE = 20;
const GROUPS_PATH = '/settings/groups';

type Open =
  | { readonly kind: 'new' }
  | { readonly kind: 'edit' | 'members'; readonly group: GroupView }
  | null;

/** What a group's agents read as in the list. */
function agentsText(group: GroupView, agents: readonly AgentChoice[] | null): string {
  if (group.agent_ids === null) return 'Every agent';
  if (group.agent_ids.length === 0) return 'No agent';
  const names = group.agent_ids.map((id) => agents?.find((agent) => agent.id === id)?.name ?? id);
  return names.join(', ');
}

/**
 * The organization's groups (issue 9 item 5): each grants its
 * members a role and may limit them to some agents. "New group", and for
 * each "Edit", "Members" and "Delete" (asked first), each in a dialog.
 */
export default function Groups() {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const version = useSignal(0);
  const open = useSignal<Open>(null);
  const done = useSignal<string | null>(null);
  const agents = useAgentChoices();
  const groups = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/groups', {
          params: {
            query: { limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) },
          },
          signal,
        }),
      ),
    [page, version.value],
  );
  const remove: Confirmation<GroupView> = {
    question: (group) => `Delete ${group.name}?`,
    explanation: () => (
      <p>
        Its members leave it at once and lose the role and agents it granted (their own role stays).
        This cannot be undone.
      </p>
    ),
    confirm: 'Delete group',
    perform: async (group) => {
      await unwrap(
        session.api.DELETE('/api/v1/groups/{id}', { params: { path: { id: group.id } } }),
      );
      done.value = `Group ${group.name} is deleted; its members no longer get what it granted.`;
      version.value += 1;
    },
  };
  const show = (kind: 'edit' | 'members', group: GroupView) => {
    open.value = { kind, group };
  };
  const close = () => {
    open.value = null;
  };
  const list = groups.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  const shown = open.value;
  const pagePath = (to: number) => (to > 1 ? `${GROUPS_PATH}?page=${to}` : GROUPS_PATH);

  return (
    <section class="panel" aria-labelledby="groups-heading">
      <div class="people-toolbar">
        <h2 id="groups-heading">Groups</h2>
        <button
          type="button"
          class="button button--primary"
          aria-haspopup="dialog"
          onClick={() => {
            done.value = null;
            open.value = { kind: 'new' };
          }}
        >
          New group
        </button>
      </div>
      <p>
        A group gives its members a role and may limit them to some agents; a person’s access is
        their own role and their groups’, applied at their next request.
      </p>
      {done.value ? (
        <p class="notice" role="status">
          {done.value}
        </p>
      ) : null}
      {groups.error.value ? <ErrorNotice error={groups.error.value} /> : null}
      {groups.loading.value && !list ? <p role="status">Loading groups…</p> : null}
      {list && list.total === 0 ? (
        <p>No groups yet. "New group" above gives several people one role or a set of agents.</p>
      ) : null}
      {list && list.groups.length > 0 ? (
        <ListTable
          caption={`${formatNumber(list.total)} ${list.total === 1 ? 'group' : 'groups'}, newest first`}
          rows={list.groups}
          rowKey={(group) => group.id}
          rowName={(group) => group.name}
          header={{ heading: 'Name', cell: (group) => group.name }}
          columns={[
            { heading: 'Role', cell: (group) => group.role },
            { heading: 'Agents', cell: (group) => agentsText(group, agents.data.value) },
          ]}
          actions={[
            { label: 'Edit', opensDialog: true, open: (group) => show('edit', group) },
            { label: 'Members', opensDialog: true, open: (group) => show('members', group) },
            { label: 'Delete', danger: true, opensDialog: true, confirm: remove },
          ]}
          onAction={() => {
            done.value = null;
          }}
        />
      ) : null}
      <Pager label="Pages of groups" page={page} pages={pages} hrefOf={pagePath} />
      <Dialog
        open={shown !== null}
        onClose={close}
        labelledBy="group-dialog-heading"
        class="people-dialog"
      >
        {shown?.kind === 'new' || shown?.kind === 'edit' ? (
          <>
            <h2 id="group-dialog-heading">
              {shown.kind === 'new' ? 'New group' : `Edit ${shown.group.name}`}
            </h2>
            <GroupForm
              group={shown.kind === 'edit' ? shown.group : null}
              agents={agents.data.value}
              onCancel={close}
              onSaved={(saved) => {
                done.value =
                  shown.kind === 'new'
                    ? `Group ${saved.name} is created.`
                    : `Group ${saved.name} is saved.`;
                open.value = null;
                version.value += 1;
              }}
            />
          </>
        ) : null}
        {shown?.kind === 'members' ? (
          <>
            <h2 id="group-dialog-heading">Members of {shown.group.name}</h2>
            <GroupMembers group={shown.group} />
            <div class="form__actions">
              <button type="button" class="button" onClick={close}>
                Close
              </button>
            </div>
          </>
        ) : null}
      </Dialog>
    </section>
  );
}
