import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { AllowlistEditor } from './allowlist-editor';
import { OrganizationName } from './organization-name';
import type { OrganizationView } from './types';
import '../people.css';

/**
 * The organization an administrator manages: its name (editable),
 * its plan (the operator's), its identifier, and its IP allowlist
 * beside the address this browser is seen from.
 */
export default function Organization() {
  const { session } = useApp();
  const id = session.me.value?.organization.id ?? '';
  const loaded = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/organizations/{id}', { params: { path: { id } }, signal })),
    [id],
  );
  // Read now, not at sign-in: the address may have changed since (another network).
  const address = useLoad(
    async (signal) => (await unwrap(session.api.GET('/api/v1/auth/me', { signal }))).source_ip,
    [],
  );
  const saved = useSignal<OrganizationView | null>(null);
  const organization = saved.value ?? loaded.data.value;
  const keep = (updated: OrganizationView) => {
    saved.value = updated;
    // The shell names the organization: it follows a new name at once.
    const me = session.me.value;
    if (me && me.organization.name !== updated.name) {
      session.me.value = { ...me, organization: { ...me.organization, name: updated.name } };
    }
  };
  return (
    <>
      <section class="panel" aria-labelledby="organization-heading">
        <h2 id="organization-heading">Organization</h2>
        {loaded.error.value ? <ErrorNotice error={loaded.error.value} /> : null}
        {loaded.loading.value && !organization ? <p role="status">Loading…</p> : null}
        {organization ? (
          <dl class="facts">
            <dt>Name</dt>
            <dd>
              <OrganizationName organization={organization} onSaved={keep} />
            </dd>
            <dt>Plan</dt>
            <dd>
              {organization.plan}{' '}
              <span class="people-muted">
                (set by the service’s operator; it cannot change here)
              </span>
            </dd>
            <dt>Identifier</dt>
            <dd>
              <code>{organization.id}</code>
            </dd>
          </dl>
        ) : null}
      </section>
      {organization ? (
        <AllowlistEditor
          organization={organization}
          address={address.data.value}
          addressUnknown={address.error.value !== null}
          onSaved={keep}
        />
      ) : null}
    </>
  );
}
