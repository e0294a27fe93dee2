import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import { useRef } from 'preact/hooks';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { CopyButton } from '../../../components/copy-button';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import {
  configurationBody,
  discoveryUrl,
  explainSsoFailure,
  fieldInputName,
  fieldLabel,
  OIDC_PROVIDER_NAMES,
  type OidcProvider,
  type ProviderFormValues,
  presetIssuer,
  providerOf,
  SAML_SOURCE_NAMES,
  type SamlSource,
  type ServiceProviderValues,
  type SsoConfiguration,
  samlSourceOf,
  tenantOf,
} from './sso-setup';

type Protocol = 'oidc' | 'saml';
const ROLE_CHOICES = ['readonly', 'train', 'configure', 'admin'] as const;

/**
 * Step 2 (D14): the identity provider, OIDC (P87's Google and Microsoft
 * presets name the issuer; the client id and secret are the administrator's)
 * or SAML, beside the values to register there, each with a copy button.
 */
export function ProviderForm({
  orgId,
  saved,
  serviceProvider,
  canSave,
  changed,
}: {
  readonly orgId: string;
  readonly saved: SsoConfiguration | null;
  readonly serviceProvider: ServiceProviderValues;
  /** A verified domain exists (P85: `PUT` needs one). */
  readonly canSave: boolean;
  readonly changed: (configuration: SsoConfiguration) => void;
}) {
  const { session } = useApp();
  const protocol = useSignal<Protocol>(saved?.protocol ?? 'oidc');
  const provider = useSignal<OidcProvider>(providerOf(saved));
  const tenant = useSignal(saved?.oidc?.preset === 'microsoft' ? tenantOf(saved.oidc.issuer) : '');
  const otherIssuer = useSignal(saved?.oidc && !saved.oidc.preset ? saved.oidc.issuer : '');
  const samlSource = useSignal<SamlSource>(samlSourceOf(saved));
  const metadataXml = useRef<HTMLTextAreaElement>(null);
  const fileProblem = useSignal<string | null>(null);
  const done = useSignal(false);
  const save = useAction(async (form: HTMLFormElement) => {
    done.value = false;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '');
    const values: ProviderFormValues = {
      protocol: protocol.value,
      oidcProvider: provider.value,
      tenant: tenant.value,
      issuer: otherIssuer.value,
      clientId: text('client_id'),
      clientSecret: text('client_secret'),
      samlSource: samlSource.value,
      metadataUrl: text('metadata_url'),
      metadataXml: text('metadata_xml'),
      metadataSigningCertificate: text('metadata_signing_certificate'),
      idpEntityId: text('idp_entity_id'),
      ssoUrl: text('sso_url'),
      ssoBinding: text('sso_binding') === 'post' ? 'post' : 'redirect',
      certificates: text('certificates'),
      emailAttribute: text('email_attribute'),
      provisionRole: text('provision_role') as ProviderFormValues['provisionRole'],
    };
    const configuration = await unwrap(
      session.api.PUT('/api/v1/organizations/{id}/sso', {
        params: { path: { id: orgId } },
        body: configurationBody(values, saved),
      }),
    );
    done.value = true;
    changed(configuration);
  });
  const failure = save.failure.value;
  const fields = failure instanceof ApiError && failure.status === 400 ? failure.fields : [];
  const invalid = new Set(fields.map((field) => fieldInputName(field.path)));
  const issuer =
    provider.value === 'other' ? otherIssuer.value : presetIssuer(provider.value, tenant.value);
  const sameProtocol = saved?.protocol === protocol.value;
  const secretSet = Boolean(saved?.oidc?.client_secret_set);
  // A file's XML goes into the field, where it can be read before saving.
  const readFile = async (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    fileProblem.value = null;
    if (!file || !metadataXml.current) return;
    try {
      metadataXml.current.value = await file.text();
    } catch {
      fileProblem.value = `${file.name} could not be read; paste its contents instead.`;
    }
  };
  // Each way's fields are keyed (<Fragment key>), so switching never hands one field's text to another.
  const input = (name: string) => ({
    id: `sso-${name}`,
    name,
    'aria-invalid': invalid.has(name) ? ('true' as const) : undefined,
  });

  return (
    <section class="panel sso-step" aria-labelledby="sso-provider-heading">
      <h2 id="sso-provider-heading">2. Connect your identity provider</h2>
      <form
        class="form sso-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run(event.currentTarget);
        }}
      >
        <fieldset class="choices">
          <legend>Protocol</legend>
          {(['oidc', 'saml'] as const).map((value) => (
            <label class="choice" key={value}>
              <input
                type="radio"
                name="protocol"
                value={value}
                checked={protocol.value === value}
                onChange={() => {
                  protocol.value = value;
                }}
              />
              {value === 'oidc' ? 'OpenID Connect (OIDC)' : 'SAML 2.0'}
            </label>
          ))}
        </fieldset>

        <h3>Give your identity provider these values</h3>
        {protocol.value === 'oidc' ? (
          <dl class="facts sso-values">
            <dt>Redirect URI</dt>
            <dd>
              <code>{serviceProvider.redirectUri}</code>{' '}
              <CopyButton value={serviceProvider.redirectUri} label="Copy redirect URI" />
            </dd>
          </dl>
        ) : (
          <dl class="facts sso-values">
            <dt>ACS URL</dt>
            <dd>
              <code>{serviceProvider.acsUrl}</code>{' '}
              <CopyButton value={serviceProvider.acsUrl} label="Copy ACS URL" />
            </dd>
            <dt>SP entity ID</dt>
            <dd>
              <code>{serviceProvider.entityId}</code>{' '}
              <CopyButton value={serviceProvider.entityId} label="Copy SP entity ID" />
            </dd>
            <dt>SP metadata URL</dt>
            <dd>
              <code>{serviceProvider.metadataUrl}</code>{' '}
              <CopyButton value={serviceProvider.metadataUrl} label="Copy SP metadata URL" />
            </dd>
          </dl>
        )}
        <p class="form__hint">
          {protocol.value === 'oidc'
            ? 'Register a web application with this redirect URI; the provider then gives you a client ID and secret.'
            : 'Most identity providers read all of these from the SP metadata URL. Their responses come back to the ACS URL by HTTP-POST, with the assertion signed.'}
        </p>

        <h3>Your identity provider’s values</h3>
        {protocol.value === 'oidc' ? (
          <Fragment key="oidc">
            <label for="sso-oidc-provider">Provider</label>
            <select
              id="sso-oidc-provider"
              value={provider.value}
              onChange={(event) => {
                provider.value = (event.currentTarget as HTMLSelectElement).value as OidcProvider;
              }}
            >
              {(Object.keys(OIDC_PROVIDER_NAMES) as OidcProvider[]).map((value) => (
                <option key={value} value={value}>
                  {OIDC_PROVIDER_NAMES[value]}
                </option>
              ))}
            </select>
            {provider.value === 'microsoft' ? (
              <>
                <label for="sso-tenant">Tenant</label>
                <p class="form__hint" id="sso-tenant-hint">
                  Your directory (tenant) ID, or one of the tenant’s domains. Sign-in through the
                  multi-tenant “common” address is not supported: the issuer must be one tenant’s.
                </p>
                <input
                  {...input('tenant')}
                  required
                  autoComplete="off"
                  pattern="[A-Za-z0-9][A-Za-z0-9.\-]{0,99}"
                  value={tenant.value}
                  aria-describedby="sso-tenant-hint"
                  onInput={(event) => {
                    tenant.value = (event.currentTarget as HTMLInputElement).value;
                  }}
                />
              </>
            ) : null}
            <label for="sso-issuer">Issuer</label>
            {provider.value === 'other' ? (
              <input
                {...input('issuer')}
                type="url"
                required
                maxLength={500}
                autoComplete="off"
                value={otherIssuer.value}
                aria-describedby="sso-discovery"
                onInput={(event) => {
                  otherIssuer.value = (event.currentTarget as HTMLInputElement).value;
                }}
              />
            ) : (
              <input
                {...input('issuer')}
                readOnly
                value={issuer ?? ''}
                aria-describedby="sso-discovery"
              />
            )}
            <p class="form__hint" id="sso-discovery">
              {issuer
                ? `Discovery document: ${discoveryUrl(issuer)}`
                : provider.value === 'microsoft'
                  ? 'The issuer follows from the tenant.'
                  : 'The provider’s issuer, https://…; the service reads its discovery document.'}
            </p>
            <label for="sso-client_id">Client ID</label>
            <input
              {...input('client_id')}
              required
              maxLength={500}
              autoComplete="off"
              defaultValue={sameProtocol ? (saved?.oidc?.client_id ?? '') : ''}
            />
            <label for="sso-client_secret">Client secret</label>
            <p class="form__hint" id="sso-client-secret-hint">
              {secretSet
                ? 'A secret is saved (encrypted; it is never shown). Leave this empty to keep it.'
                : 'Stored encrypted and never shown again.'}
            </p>
            <input
              {...input('client_secret')}
              type="password"
              required={!secretSet}
              maxLength={2000}
              autoComplete="new-password"
              aria-describedby="sso-client-secret-hint"
            />
          </Fragment>
        ) : (
          <Fragment key="saml">
            {saved?.saml && sameProtocol ? <SamlInUse saml={saved.saml} /> : null}
            <fieldset class="choices">
              <legend>How to give the IdP</legend>
              {(Object.keys(SAML_SOURCE_NAMES) as SamlSource[]).map((value) => (
                <label class="choice" key={value}>
                  <input
                    type="radio"
                    name="saml_source"
                    value={value}
                    checked={samlSource.value === value}
                    onChange={() => {
                      samlSource.value = value;
                    }}
                  />
                  {SAML_SOURCE_NAMES[value]}
                </label>
              ))}
            </fieldset>
            {samlSource.value === 'url' ? (
              <Fragment key="url">
                <label for="sso-metadata_url">Metadata URL</label>
                <p class="form__hint" id="sso-metadata-url-hint">
                  Where your IdP publishes its metadata, https://…. It is read once, when you save;
                  save again to read it anew.
                </p>
                <input
                  {...input('metadata_url')}
                  type="url"
                  required
                  maxLength={2000}
                  autoComplete="off"
                  aria-describedby="sso-metadata-url-hint"
                  defaultValue={sameProtocol ? (saved?.saml?.metadata_url ?? '') : ''}
                />
              </Fragment>
            ) : null}
            {samlSource.value === 'xml' ? (
              <Fragment key="xml">
                <label for="sso-metadata_xml">Metadata XML</label>
                <p class="form__hint" id="sso-metadata-xml-hint">
                  Paste the IdP’s metadata (an EntityDescriptor), or read it from a file below.
                </p>
                <textarea
                  {...input('metadata_xml')}
                  ref={metadataXml}
                  required
                  rows={8}
                  spellcheck={false}
                  aria-describedby="sso-metadata-xml-hint"
                />
                <label for="sso-metadata-file">Read the XML from a file</label>
                <input
                  id="sso-metadata-file"
                  type="file"
                  class="sso-file"
                  accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
                  onChange={(event) => void readFile(event)}
                />
                {fileProblem.value ? (
                  <p class="form__hint" role="alert">
                    {fileProblem.value}
                  </p>
                ) : null}
              </Fragment>
            ) : null}
            {samlSource.value === 'manual' ? (
              <Fragment key="manual">
                <label for="sso-idp_entity_id">IdP entity ID</label>
                <input
                  {...input('idp_entity_id')}
                  required
                  maxLength={500}
                  autoComplete="off"
                  defaultValue={sameProtocol ? (saved?.saml?.idp_entity_id ?? '') : ''}
                />
                <label for="sso-sso_url">SSO URL</label>
                <p class="form__hint" id="sso-sso-url-hint">
                  Where the browser is sent to sign in, https://….
                </p>
                <input
                  {...input('sso_url')}
                  type="url"
                  required
                  maxLength={2000}
                  autoComplete="off"
                  aria-describedby="sso-sso-url-hint"
                  defaultValue={sameProtocol ? (saved?.saml?.sso_url ?? '') : ''}
                />
                <label for="sso-sso_binding">Binding</label>
                <p class="form__hint" id="sso-sso-binding-hint">
                  How the SSO URL takes the sign-in request. With HTTP-POST, people press “Continue”
                  once on the way to the IdP.
                </p>
                <select
                  id="sso-sso_binding"
                  name="sso_binding"
                  aria-describedby="sso-sso-binding-hint"
                  defaultValue={
                    sameProtocol ? (saved?.saml?.sso_binding ?? 'redirect') : 'redirect'
                  }
                >
                  <option value="redirect">HTTP-Redirect</option>
                  <option value="post">HTTP-POST</option>
                </select>
                <label for="sso-certificates">Signing certificates</label>
                <p class="form__hint" id="sso-certificates-hint">
                  The IdP’s X.509 certificate in PEM (-----BEGIN CERTIFICATE-----…); up to four, one
                  after the other, while it rolls its keys over.
                </p>
                <textarea
                  {...input('certificates')}
                  required
                  rows={6}
                  spellcheck={false}
                  aria-describedby="sso-certificates-hint"
                  defaultValue={
                    sameProtocol ? (saved?.saml?.idp_certificates.join('\n') ?? '') : ''
                  }
                />
              </Fragment>
            ) : (
              <Fragment key="metadata-signing">
                <label for="sso-metadata_signing_certificate">
                  Metadata signing certificate (optional)
                </label>
                <p class="form__hint" id="sso-metadata-signing-hint">
                  If your IdP signs its metadata: its certificate in PEM. Metadata not signed with
                  it is then refused.
                </p>
                <textarea
                  {...input('metadata_signing_certificate')}
                  rows={4}
                  spellcheck={false}
                  aria-describedby="sso-metadata-signing-hint"
                />
              </Fragment>
            )}
          </Fragment>
        )}

        <h3>Who signs in</h3>
        <label for="sso-email_attribute">Email attribute</label>
        <p class="form__hint" id="sso-email-attribute-hint">
          {protocol.value === 'oidc'
            ? 'The ID token claim with the email address; empty means “email”.'
            : 'The attribute with the email address; empty means the NameID.'}
        </p>
        <input
          {...input('email_attribute')}
          maxLength={200}
          autoComplete="off"
          aria-describedby="sso-email-attribute-hint"
          defaultValue={
            sameProtocol && saved && !['email', 'nameID'].includes(saved.attribute_mapping.email)
              ? saved.attribute_mapping.email
              : ''
          }
        />
        <label for="sso-provision_role">People without an account</label>
        <p class="form__hint" id="sso-provision-hint">
          Someone at a verified domain who has no account here yet, signing in for the first time.
        </p>
        <select
          id="sso-provision_role"
          name="provision_role"
          aria-describedby="sso-provision-hint"
          defaultValue={saved?.provision_role ?? ''}
        >
          <option value="">Refuse them (invite people first)</option>
          {ROLE_CHOICES.map((role) => (
            <option key={role} value={role}>
              Create their account with the {role} role
            </option>
          ))}
        </select>

        {canSave ? null : (
          <p class="notice">Verify a domain (step 1) before saving: SSO needs one.</p>
        )}
        <div class="form__actions">
          <button type="submit" class="button button--primary" disabled={save.pending.value}>
            {save.pending.value ? 'Saving…' : 'Save SSO settings'}
          </button>
        </div>
        {done.value ? (
          <p role="status" class="sso-saved">
            Saved. It takes effect at once: test it below before enforcing it.
          </p>
        ) : null}
      </form>
      {failure ? (
        <div>
          <ErrorNotice error={explainSsoFailure(failure)} />
          {fields.length > 0 ? (
            <ul class="sso-field-errors" aria-label="What to correct">
              {fields.map((field) => (
                <li key={field.path}>
                  {fieldLabel(field.path)}: {field.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** P272: what SAML sign-in uses now, as read from the metadata or given by hand. */
function SamlInUse({ saml }: { readonly saml: NonNullable<SsoConfiguration['saml']> }) {
  const count = saml.idp_certificates.length;
  return (
    <>
      <h4 class="sso-subheading">In use now</h4>
      <dl class="facts sso-values">
        <dt>IdP entity ID</dt>
        <dd>
          <code>{saml.idp_entity_id}</code>
        </dd>
        <dt>SSO URL</dt>
        <dd>
          <code>{saml.sso_url}</code>
        </dd>
        <dt>Binding</dt>
        <dd>{saml.sso_binding === 'post' ? 'HTTP-POST' : 'HTTP-Redirect'}</dd>
        <dt>Signing certificates</dt>
        <dd>{count === 1 ? 'one' : count}</dd>
        {saml.metadata_url ? (
          <>
            <dt>Read from</dt>
            <dd>
              <code>{saml.metadata_url}</code>
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}
