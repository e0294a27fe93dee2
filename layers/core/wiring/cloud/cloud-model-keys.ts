import { HOSTED_PROVIDER_URLS } from '../../adapters/ai/provider-urls';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import type { ModelKeyAnswererFactory } from '../../ports/model-key.port';
import { modelKeyAnswerers } from '../model-key-answerers';

/**
 * Answers with an organization's key, at the providers' own addresses;
 * custom endpoints under the SSRF guard (`https`, public addresses only, never private
 * ones in the cloud).
 */
export function cloudModelKeyAnswerers(): ModelKeyAnswererFactory {
  return modelKeyAnswerers({
    policy: webhookPolicy({ allowPrivateAddresses: false }),
    urls: HOSTED_PROVIDER_URLS,
  });
}
