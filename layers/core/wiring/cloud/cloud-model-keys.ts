import type { ModelKeyAnswererFactory } from '../../ports/model-key.port';

/**
 * Answers with an organization's key, at the providers' own addresses;
 * custom endpoints under the SSRF guard (`https`, public addresses only, never private
 * ones in the cloud). The answerers, the guarded fetch and its address checks
 * are loaded at the first answer with an organization's key, not at init:
 * most queries answer with the deployment's own model and never need them.
 */
export function cloudModelKeyAnswerers(): ModelKeyAnswererFactory {
  let answerers: Promise<ModelKeyAnswererFactory> | undefined;
  const load = async (): Promise<ModelKeyAnswererFactory> => {
    const [{ modelKeyAnswerers }, { webhookPolicy }, { HOSTED_PROVIDER_URLS }] = await Promise.all([
      import('../model-key-answerers'),
      import('../../adapters/net/outbound-policy'),
      import('../../adapters/ai/provider-urls'),
    ]);
    return modelKeyAnswerers({
      policy: webhookPolicy({ allowPrivateAddresses: false }),
      urls: HOSTED_PROVIDER_URLS,
    });
  };
  return async (credentials) => {
    answerers ??= load();
    return (await answerers)(credentials);
  };
}
