import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { useApp } from '../../app/context';
import { ErrorNotice } from '../../components/error-notice';

/** The organization an administrator manages (D13): its name, plan and identifier. */
export default function Organization() {
  const { session } = useApp();
  const id = session.me.value?.organization.id ?? '';
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
