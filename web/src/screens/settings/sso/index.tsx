import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useLoad } from '../../../api/use-load';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { Domains } from './domains';
import { Enforcement, RemoveSso, TestSignIn } from './enforcement';
import { ProviderForm } from './provider-form';
import { explainSsoFailure, type SsoConfiguration, serviceProviderValues } from './sso-setup';
import './sso.css';

/**
 * Settings › Single sign-on (issue 22 item 7): a guided setup in
 * order — verify a domain, connect the identity provider, test the
 * sign-in, enforce it — for administrators, with their session only.
 */
export default function SingleSignOn() {
  const { session } = useApp();
  const location = useLocation();
  const me = session.me.value;
  const orgId = me?.organization.id ?? '';
  const reloads = useSignal(0);
  const changed = () => {
    reloads.value += 1;
  };
  const domains = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/organizations/{id}/sso/domains', {
          params: { path: { id: orgId } },
          signal,
        }),
      ),
    [orgId, reloads.value],
  );
  const configuration = useLoad(
    async (signal): Promise<SsoConfiguration | null> => {
      try {
        return await unwrap(
          session.api.GET('/api/v1/organizations/{id}/sso', {
            params: { path: { id: orgId } },
            signal,
          }),
        );
      } catch (error) {
        // Not configured yet: the setup starts from nothing.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    [orgId, reloads.value],
  );
  const listed = domains.data.value?.domains ?? null;
  const saved = configuration.data.value;
  const failure = domains.error.value ?? configuration.error.value;
  const loaded = listed !== null && !configuration.loading.value;

  return (
    <>
      <section class="sso-intro" aria-labelledby="sso-heading">
        <h2 id="sso-heading">Single sign-on</h2>
        <p>
          Let your people sign in through your identity provider (OIDC or SAML 2.0). Changes take
          effect at once.
        </p>
        {location.query.tested === '1' && me ? (
          <p class="notice" role="status">
            Back from the test sign-in: you are signed in as {me.user.email} through your identity
            provider.
          </p>
        ) : null}
        {saved ? (
          <p class="sso-status" data-status={saved.enforce_sso ? 'verified' : 'pending'}>
            {saved.protocol === 'oidc' ? 'OIDC' : 'SAML 2.0'} is set up;{' '}
            {saved.enforce_sso ? 'SSO is enforced.' : 'password sign-in still works.'}
          </p>
        ) : null}
      </section>
      {failure ? <ErrorNotice error={explainSsoFailure(failure)} /> : null}
      {loaded && !failure ? (
        <>
          <Domains
            orgId={orgId}
            domains={listed}
            enforced={saved?.enforce_sso ?? false}
            changed={changed}
          />
          <ProviderForm
            orgId={orgId}
            saved={saved}
            serviceProvider={serviceProviderValues(window.location.origin, orgId, saved)}
            canSave={listed.some((domain) => domain.status === 'verified')}
            changed={(updated) => {
              configuration.data.value = updated;
            }}
          />
          {saved ? (
            <>
              <TestSignIn orgId={orgId} saved={saved} />
              <Enforcement
                orgId={orgId}
                organizationName={me?.organization.name ?? 'your organization'}
                saved={saved}
                domains={listed}
                changed={(updated) => {
                  configuration.data.value = updated;
                }}
              />
              <RemoveSso
                orgId={orgId}
                removed={() => {
                  configuration.data.value = null;
                }}
              />
            </>
          ) : null}
        </>
      ) : null}
      {!loaded && !failure ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : null}
    </>
  );
}
