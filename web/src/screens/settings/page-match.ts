import type { FunctionComponent } from 'preact';
import type { Role } from '../../state/session';

/** One page of Settings and who may open it. */
export interface SettingsPage {
  readonly path: string;
  /** The sub-navigation link's exact name. */
  readonly label: string;
  /** The least role the page's API calls accept. */
  readonly role: Role;
  readonly component: FunctionComponent;
}

/**
 * The page a path belongs to: the longest page path it equals or sits
 * under, so `/settings/password` is Profile's and `/settings/users/usr_1`
 * is Users'.
 */
export function settingsPageFor(path: string, pages: readonly SettingsPage[]): SettingsPage | null {
  let found: SettingsPage | null = null;
  for (const page of pages) {
    const under = path === page.path || path.startsWith(`${page.path}/`);
    if (under && (!found || page.path.length > found.path.length)) found = page;
  }
  return found;
}
