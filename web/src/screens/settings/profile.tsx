import { useLocation } from 'preact-iso/router';
import { formatDateTime } from '../../format/format';
import { useApp } from '../../state/app-context';
import type { ThemeChoice } from '../../state/theme';
import { ChangePassword } from './change-password';

/** The person's own password, a page under their profile. */
export const CHANGE_PASSWORD_PATH = '/settings/password';

const THEME_CHOICES: ReadonlyArray<readonly [ThemeChoice, string]> = [
  ['system', 'Follow the system'],
  ['light', 'Light'],
  ['dark', 'Dark'],
];

/** Everyone's own page in Settings: their account, their password and the console's appearance. */
export default function Profile() {
  const { session, theme } = useApp();
  const location = useLocation();
  const me = session.me.value;
  if (!me) return null;
  if (location.path === CHANGE_PASSWORD_PATH) return <ChangePassword />;
  return (
    <>
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
    </>
  );
}
