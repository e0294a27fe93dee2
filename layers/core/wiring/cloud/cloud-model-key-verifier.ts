import { HttpModelKeyVerifier } from '../../adapters/ai/model-key-verifier';
import { HOSTED_PROVIDER_URLS } from '../../adapters/ai/provider-urls';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import type { ModelKeyVerifier } from '../../ports/model-key.port';

/**
 * The key check at save, with plain HTTP (no provider SDK in the
 * model-keys function). D35 for custom endpoints: `https` only, public
 * addresses only — the webhooks' rule; never private addresses in the cloud.
 */
export function cloudModelKeyVerifier(): ModelKeyVerifier {
  return new HttpModelKeyVerifier(
    webhookPolicy({ allowPrivateAddresses: false }),
    HOSTED_PROVIDER_URLS,
  );
}
