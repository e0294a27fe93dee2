import { useSignal } from '@preact/signals';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { fieldAttributes } from './field-attributes';
import { OidcFields, OidcServiceValues, useOidcChoice } from './oidc-fields';
import { SamlFields, SamlServiceValues } from './saml-fields';
import {
  configurationBody,
  explainSsoFailure,
  fieldInputName,
  fieldLabel,
  type ProviderFormValues,
  type SamlSource,
  type ServiceProviderValues,
  type SsoConfiguration,
  samlSourceOf,
} from './sso-setup';

type Protocol = 'oidc' | 'saml';
const ROLE_CHOICES = ['readonly', 'train', 'configure', 'admin'] as const;

/**
 * Step 2: the identity provider, OIDC (the Google and Microsoft
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
  /** A verified domain exists (`PUT` needs one). */
  readonly canSave: boolean;
  readonly changed: (configuration: SsoConfiguration) => void;
}) {
  const { session } = useApp();
  const protocol = useSignal<Protocol>(saved?.protocol ?? 'oidc');
  const oidc = useOidcChoice(saved);
  const samlSource = useSignal<SamlSource>(samlSourceOf(saved));
  const done = useSignal(false);
  const save = useAction(async (form: HTMLFormElement) => {
    done.value = false;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '');
    const values: ProviderFormValues = {
      protocol: protocol.value,
      oidcProvider: oidc.provider.value,
      tenant: oidc.tenant.value,
      issuer: oidc.otherIssuer.value,
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
  const sameProtocol = saved?.protocol === protocol.value;
  // Each protocol's fields are their own component (and SAML's ways keyed), so switching never
  // hands one field's text to another.
  const input = fieldAttributes(new Set(fields.map((field) => fieldInputName(field.path))));

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
          <OidcServiceValues serviceProvider={serviceProvider} />
        ) : (
          <SamlServiceValues serviceProvider={serviceProvider} />
        )}

        <h3>Your identity provider’s values</h3>
        {protocol.value === 'oidc' ? (
          <OidcFields choice={oidc} saved={saved} sameProtocol={sameProtocol} input={input} />
        ) : (
          <SamlFields source={samlSource} saved={saved} sameProtocol={sameProtocol} input={input} />
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
