import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudSecretSealer } from '../../layers/core/wiring/cloud/cloud-secret-sealer';
import { cloudSso } from '../../layers/core/wiring/cloud/cloud-sso';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * SSO: the table (settings, domains, flows, users, sessions), the
 * secrets key (the OIDC client secret, sealed under its own purpose),
 * DNS for domain verification, and outbound HTTPS to identity providers.
 */
export const dependencies = compositionRoot(() => ({
  ...cloudHttpPlatform(),
  ...cloudSso(),
  secretSealer: cloudSecretSealer(),
}));

export type SsoDependencies = ReturnType<typeof dependencies>;
