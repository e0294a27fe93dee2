import type { LocalService } from './local-service';
import { svc } from './operator-cli';

export interface OwnOrganization {
  readonly id: string;
  readonly name: string;
  readonly admin: { readonly email: string; readonly password: string; readonly name: string };
}

/**
 * An organization of a spec's own with its first administrator, made as an
 * operator makes one (D36: `svc orgs create`, `svc users create`): its
 * lists hold only what the spec puts there, and its administrator's write
 * buckets (D16) are not the shared ADMIN's.
 */
export async function ownOrganization(
  service: LocalService,
  label: string,
  plan: 'free' | 'pro' | 'enterprise' = 'enterprise',
): Promise<OwnOrganization> {
  const unique = `${label}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const name = `${label.charAt(0).toUpperCase()}${label.slice(1)} organization`;
  const created = await svc(service, ['orgs', 'create', '--name', name, '--plan', plan]);
  const id = String(created.id);
  const admin = {
    email: `${unique}@console.test`,
    password: `the password of ${unique}`,
    name: 'Ada Admin',
  };
  await svc(
    service,
    [
      'users',
      'create',
      '--org',
      id,
      '--email',
      admin.email,
      '--name',
      admin.name,
      '--role',
      'admin',
      '--password-stdin',
    ],
    `${admin.password}\n`,
  );
  return { id, name, admin };
}
