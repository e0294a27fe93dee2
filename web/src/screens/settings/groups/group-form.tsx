import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import type { AgentChoice } from '../../../components/agent-select';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import type { Role } from '../../../state/roles';
import { fieldProblem, type GroupView, onlyFields, ROLE_CHOICES } from '../people';

/** The service's bounds (GROUP_LIMITS). */
const NAME_MAX = 200;
const AGENTS_MAX = 100;

/**
 * A group made or changed: its name, the role it grants, and the
 * agents it limits its members to — every agent (`agent_ids: null`) or only
 * those checked. A refusal naming a field is said under it.
 */
export function GroupForm({
  group,
  agents,
  onSaved,
  onCancel,
}: {
  readonly group: GroupView | null;
  readonly agents: readonly AgentChoice[] | null;
  readonly onSaved: (group: GroupView) => void;
  readonly onCancel: () => void;
}) {
  const { session } = useApp();
  const limited = useSignal(group ? group.agent_ids !== null : false);
  const save = useAction(async (body: { name: string; role: Role; agent_ids: string[] | null }) => {
    const saved = group
      ? await unwrap(
          session.api.PUT('/api/v1/groups/{id}', { params: { path: { id: group.id } }, body }),
        )
      : await unwrap(session.api.POST('/api/v1/groups', { body }));
    onSaved(saved);
  });
  const failure = save.failure.value;
  const nameProblem = fieldProblem(failure, 'name');
  const agentsProblem = failure ? agentsFieldProblem(failure) : null;
  const chosen = new Set(group?.agent_ids ?? []);
  // Agents the group lists that this person cannot see any more (deleted): kept unless unchecked.
  const unknown = (group?.agent_ids ?? []).filter(
    (id) => agents !== null && !agents.some((agent) => agent.id === id),
  );
  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        void save.run({
          name: String(data.get('name') ?? '').trim(),
          role: String(data.get('role') ?? 'readonly') as Role,
          agent_ids: limited.value ? data.getAll('agent_id').map(String) : null,
        });
      }}
    >
      <label for="group-name">Name</label>
      <input
        id="group-name"
        name="name"
        required
        maxLength={NAME_MAX}
        autoComplete="off"
        defaultValue={group?.name ?? ''}
        aria-invalid={nameProblem ? 'true' : undefined}
        aria-describedby={nameProblem ? 'group-name-problem' : undefined}
      />
      {nameProblem ? (
        <p id="group-name-problem" class="people-field-problem">
          The name {nameProblem}.
        </p>
      ) : null}
      <label for="group-role">Role</label>
      <select
        id="group-role"
        name="role"
        class="people-select"
        defaultValue={group?.role ?? 'readonly'}
        aria-describedby="group-role-hint"
      >
        {ROLE_CHOICES.map(([role, words]) => (
          <option key={role} value={role}>
            {words}
          </option>
        ))}
      </select>
      <p id="group-role-hint" class="form__hint">
        Members get the higher of their own role and their groups’ roles.
      </p>
      <fieldset class="people-checks">
        <legend>Agents its members may use</legend>
        <label>
          <input
            type="radio"
            name="limit"
            checked={!limited.value}
            onChange={() => {
              limited.value = false;
            }}
          />
          Every agent (this group limits nothing)
        </label>
        <label>
          <input
            type="radio"
            name="limit"
            checked={limited.value}
            onChange={() => {
              limited.value = true;
            }}
          />
          Only the agents checked
        </label>
        {limited.value ? (
          <fieldset class="people-agent-list">
            <legend class="visually-hidden">Agents</legend>
            {agents === null ? <p role="status">Loading agents…</p> : null}
            {agents !== null && agents.length === 0 && unknown.length === 0 ? (
              <p>The organization has no agent yet.</p>
            ) : null}
            {(agents ?? []).map((agent) => (
              <label key={agent.id}>
                <input
                  type="checkbox"
                  name="agent_id"
                  value={agent.id}
                  defaultChecked={chosen.has(agent.id)}
                />
                {agent.name}
              </label>
            ))}
            {unknown.map((id) => (
              <label key={id}>
                <input type="checkbox" name="agent_id" value={id} defaultChecked />
                <code>{id}</code> (not found)
              </label>
            ))}
          </fieldset>
        ) : null}
      </fieldset>
      <p class="form__hint">
        A person limited by all of their groups uses only the agents those groups list; with none
        checked, none. One group with every agent lifts the limit. Administrators are never limited.
        At most {AGENTS_MAX} agents.
      </p>
      {agentsProblem ? <p class="people-field-problem">Agents: {agentsProblem}.</p> : null}
      {failure && !onlyFields(failure, ['name']) && !agentsProblem ? (
        <ErrorNotice error={failure} />
      ) : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={save.pending.value}>
          {save.pending.value ? 'Saving…' : group ? 'Save group' : 'Create group'}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A refusal of the agent list or one of its entries (`agent_ids`, `agent_ids.3`), in words. */
function agentsFieldProblem(failure: unknown): string | null {
  const fields =
    failure && typeof failure === 'object' && 'fields' in failure
      ? (failure as { fields: ReadonlyArray<{ path: string; message: string }> }).fields
      : [];
  const field = fields.find(
    (entry) => entry.path === 'agent_ids' || entry.path.startsWith('agent_ids.'),
  );
  return field ? field.message : null;
}
