import {
  DynamoDbSamlAssertionLedger,
  DynamoDbSsoFlowStore,
} from '../../adapters/dynamodb/sso-flows';
import { DynamoDbSsoRepository } from '../../adapters/dynamodb/sso-repository';
import { DnsTxtResolver } from '../../adapters/net/dns-txt-resolver';
import { identityProviderUrlRule } from '../../adapters/net/identity-provider-urls';
import { webhookPolicy } from '../../adapters/net/outbound-policy';
import { JoseOidcRelyingParty } from '../../adapters/sso/jose-oidc-relying-party';
import { NodeSamlServiceProvider } from '../../adapters/sso/node-saml-service-provider';
import { XmlSamlMetadataReader } from '../../adapters/sso/xml-saml-metadata-reader';
import { parseCloudConfig } from '../../config';
import { systemClock } from '../../ports/clock.port';
import type { Dependencies } from '../../ports/dependencies.port';
import { cloudTable } from './cloud-table';

/**
 * D14 in the cloud: SSO settings, flows, domains and SAML assertions seen in
 * the table, DNS TXT look-ups, the SAML service provider, the OIDC relying party under the SSRF guard (https, public addresses only:
 * identity providers are customer-supplied addresses), and the API's public
 * address when the stack knows it.
 */
export function cloudSso(): Pick<
  Dependencies,
  | 'ssoRepository'
  | 'ssoFlows'
  | 'txtResolver'
  | 'oidcRelyingParty'
  | 'identityProviderUrls'
  | 'samlServiceProvider'
  | 'samlMetadata'
  | 'samlAssertions'
  | 'publicBaseUrl'
> {
  const { client, tableName } = cloudTable();
  const config = parseCloudConfig('sso');
  // Identity providers are customer-supplied addresses; private ones are never allowed in the cloud.
  const policy = webhookPolicy({ allowPrivateAddresses: false });
  return {
    ssoRepository: new DynamoDbSsoRepository(client, tableName),
    ssoFlows: new DynamoDbSsoFlowStore(client, tableName),
    txtResolver: new DnsTxtResolver({ servers: config.SVC_DNS_SERVERS }),
    oidcRelyingParty: new JoseOidcRelyingParty(policy, systemClock),
    identityProviderUrls: identityProviderUrlRule(policy),
    samlServiceProvider: new NodeSamlServiceProvider(),
    samlMetadata: new XmlSamlMetadataReader(policy),
    samlAssertions: new DynamoDbSamlAssertionLedger(client, tableName),
    publicBaseUrl: () => config.SVC_PUBLIC_URL,
  };
}
