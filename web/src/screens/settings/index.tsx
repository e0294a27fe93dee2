import { useLocation } from 'preact-iso/router';
import { useApp } from '../../state/app-context';
import { roleAtLeast } from '../../state/session';
import { SETTINGS_PAGES, settingsPageFor } from './pages';
import './settings.css';

/**
 * Settings: a sub-navigation of the pages this person's role opens (* the others are not shown) beside the page the address names. A page the
 * role does not open, reached by a typed or shared link, says whose it is.
 */
export default function Settings() {
  const { session } = useApp();
  const location = useLocation();
  const me = session.me.value;
  if (!me) return null;
  const role = me.access.role;
  const visible = SETTINGS_PAGES.filter((page) => roleAtLeast(role, page.role));
  const page = settingsPageFor(location.path, SETTINGS_PAGES);
  const Page = page && roleAtLeast(role, page.role) ? page.component : null;
  return (
    <div class="settings">
      <h1 class="settings__heading">Settings</h1>
      <nav class="settings__nav" aria-label="Settings">
        <ul class="nav-list">
          {visible.map((entry) => (
            <li key={entry.path}>
              <a href={entry.path} aria-current={entry === page ? 'page' : undefined}>
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="settings__page">
        {Page ? (
          <Page />
        ) : page ? (
          <p class="notice" role="status">
            {page.label} is for people with the {page.role} role; yours is {role}. Ask an
            administrator if you need it.
          </p>
        ) : (
          <p class="notice" role="status">
            There is no such settings page. <a href={SETTINGS_PAGES[0]?.path}>Go to your profile</a>
            .
          </p>
        )}
      </div>
    </div>
  );
}
