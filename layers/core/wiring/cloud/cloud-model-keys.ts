import { HttpModelKeyVerifier } from '../../adapters/ai/model-key-verifier';
import { HOSTED_PROVIDER_URLS } from '../../adapters/ai/provider-urls';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import type { ModelKeyAnswererFactory, ModelKeyVerifier } from '../../ports/model-key.port';
import { modelKeyAnswerers } from '../model-key-answerers';

/**
 * D35 for custom model endpoints: `https` only, public addresses only — the
 * webhooks' rule; private addresses are never allowed in the cloud.
 */
const CLOUD_POLICY = webhookPolicy({ allowPrivateAddresses: false });

/** P132: the key check at save, with plain HTTP (no provider SDK in the model-keys function). */
export function cloudModelKeyVerifier(): ModelKeyVerifier {
  return new HttpModelKeyVerifier(CLOUD_POLICY, HOSTED_PROVIDER_URLS);
}

/** D33: answers with an organization's key, at the providers' own addresses. */
export function cloudModelKeyAnswerers(): ModelKeyAnswererFactory {
  return modelKeyAnswerers({ policy: CLOUD_POLICY, urls: HOSTED_PROVIDER_URLS });
}
