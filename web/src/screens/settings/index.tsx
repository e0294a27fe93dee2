import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { useApp } from '../../app/context';
import { ErrorNotice } from '../../components/error-notice';
import { formatDateTime } from '../../format/format';
import { roleAtLeast } from '../../state/session';
import type { ThemeChoice } from '../../state/theme';
import { ChangePassword } from './change-password';
import './settings.css';

/** P224: the person's own password, a page under Settings. */
export const CHANGE_PASSWORD_PATH = '/settings/password';

const THEME_CHOICES: ReadonlyArray<readonly [ThemeChoice, string]> = [
  ['system', 'Follow the system'],
  ['light', 'Light'],
  ['dark', 'Dark'],
];

/** The signed-in person's account and appearance; the organization for administrators (D13). */
export default function Settings() {
  const { session, theme } = useApp();
  const location = useLocation();
  const me = session.me.value;
  if (!me) return null;
  if (location.path === CHANGE_PASSWORD_PATH) return <ChangePassword />;
  return (
    <section class="screen" aria-labelledby="settings-heading">
      <h1 id="settings-heading">Settings</h1>
      <section class="panel" aria-labelledby="account-heading">
        <h2 id="account-heading">Your account</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.user.name}</dd>
          <dt>Email</dt>
          <dd>{me.user.email}</dd>
          <dt>Role</dt>
          <dd>
            {me.access.role}
            {me.access.role !== me.user.role
              ? ` (your own: ${me.user.role}; a group grants more)`
              : ''}
          </dd>
          <dt>Groups</dt>
          <dd>{me.access.group_ids.length === 0 ? 'None' : me.access.group_ids.length}</dd>
          <dt>Signed in until</dt>
          <dd>{formatDateTime(me.session_expires_at)} at the latest</dd>
        </dl>
        <p class="panel__actions">
          <a href={CHANGE_PASSWORD_PATH}>Change password</a>
        </p>
      </section>
      <section class="panel" aria-labelledby="appearance-heading">
        <h2 id="appearance-heading">Appearance</h2>
        <fieldset class="choices">
          <legend>Theme</legend>
          {THEME_CHOICES.map(([value, label]) => (
            <label key={value} class="choice">
              <input
                type="radio"
                name="theme"
                value={value}
                checked={theme.choice.value === value}
                onChange={() => theme.choose(value)}
              />
              {label}
            </label>
          ))}
        </fieldset>
      </section>
      {roleAtLeast(me.access.role, 'admin') ? <Organization id={me.organization.id} /> : null}
    </section>
  );
}

function Organization({ id }: { readonly id: string }) {
  const { session } = useApp();
  const organization = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/organizations/{id}', { params: { path: { id } }, signal })),
    [id],
  );
  const loaded = organization.data.value;
  return (
    <section class="panel" aria-labelledby="organization-heading">
      <h2 id="organization-heading">Organization</h2>
      {organization.error.value ? <ErrorNotice error={organization.error.value} /> : null}
      {loaded ? (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{loaded.name}</dd>
          <dt>Plan</dt>
          <dd>{loaded.plan}</dd>
          <dt>Identifier</dt>
          <dd>
            <code>{loaded.id}</code>
          </dd>
        </dl>
      ) : null}
    </section>
  );
}
