import type { Signal } from '@preact/signals';
import { useSignal } from '@preact/signals';
import { CopyButton } from '../../../components/copy-button';
import type { FieldAttributes } from './field-attributes';
import {
  discoveryUrl,
  OIDC_PROVIDER_NAMES,
  type OidcProvider,
  presetIssuer,
  providerOf,
  type ServiceProviderValues,
  type SsoConfiguration,
  tenantOf,
} from './sso-setup';

/** The OIDC choices the form keeps across renders: the provider, and the tenant or issuer it needs. */
export interface OidcChoice {
  readonly provider: Signal<OidcProvider>;
  /** Microsoft's tenant (its issuer follows from it). */
  readonly tenant: Signal<string>;
  /** The issuer typed for any other provider. */
  readonly otherIssuer: Signal<string>;
}

/** The choice as saved, or Google's preset for a new configuration. */
export function useOidcChoice(saved: SsoConfiguration | null): OidcChoice {
  return {
    provider: useSignal<OidcProvider>(providerOf(saved)),
    tenant: useSignal(saved?.oidc?.preset === 'microsoft' ? tenantOf(saved.oidc.issuer) : ''),
    otherIssuer: useSignal(saved?.oidc && !saved.oidc.preset ? saved.oidc.issuer : ''),
  };
}

/** What to register at an OIDC provider: the redirect URI, with its copy button. */
export function OidcServiceValues({
  serviceProvider,
}: {
  readonly serviceProvider: ServiceProviderValues;
}) {
  return (
    <>
      <dl class="facts sso-values">
        <dt>Redirect URI</dt>
        <dd>
          <code>{serviceProvider.redirectUri}</code>{' '}
          <CopyButton value={serviceProvider.redirectUri} label="Copy redirect URI" />
        </dd>
      </dl>
      <p class="form__hint">
        Register a web application with this redirect URI; the provider then gives you a client ID
        and secret.
      </p>
    </>
  );
}

/**
 * The OIDC provider's values: Google's and Microsoft's presets name the
 * issuer (Microsoft's from the tenant), any other provider's is typed; the
 * client ID and secret are the administrator's, the secret kept when left
 * empty once one is saved.
 */
export function OidcFields({
  choice,
  saved,
  sameProtocol,
  input,
}: {
  readonly choice: OidcChoice;
  readonly saved: SsoConfiguration | null;
  /** The saved configuration is OIDC too, so its values fill the fields. */
  readonly sameProtocol: boolean;
  readonly input: FieldAttributes;
}) {
  const { provider, tenant, otherIssuer } = choice;
  const issuer =
    provider.value === 'other' ? otherIssuer.value : presetIssuer(provider.value, tenant.value);
  const secretSet = Boolean(saved?.oidc?.client_secret_set);
  return (
    <>
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
    </>
  );
}
