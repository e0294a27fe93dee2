import { Duration } from 'aws-cdk-lib';
import type {
  EndpointFamily,
  FamilyNeeds,
  FamilyVariable,
  SendableQueue,
} from '../functions/endpoint-family';
import type { BedrockModelAccess } from './constructs/bedrock-model-access';
import type { ConnectorApps } from './constructs/connector-apps';
import type { HttpApiFamily } from './constructs/http-api';
import type { MailSender } from './constructs/mail-sender';
import type { ModelProvider } from './constructs/model-provider';
import type { OriginVerifySecret } from './constructs/origin-verify-secret';
import type { SearchDomain } from './constructs/search-domain';
import type { SecretsKey } from './constructs/secrets-key';
import type { ServiceFunction, ServiceFunctionNetworkProps } from './constructs/service-function';
import type { ServiceNetwork } from './constructs/service-network';
import type { SessionSigningSecret } from './constructs/session-signing-secret';
import type { WorkQueue } from './constructs/work-queue';
import type { ServiceGrants } from './service-grants';

/**
 * Where a family's function may be placed (`FamilyNeeds.network`), as the
 * stack's network provides it: empty without the VPC.
 */
export type FamilyPlacements = Readonly<
  Record<NonNullable<FamilyNeeds['network']>, ServiceFunctionNetworkProps>
>;

/** The declarations as the HTTP API construct takes them: routes, timeout, memory and placement. */
export function httpApiFamilies(
  families: readonly EndpointFamily[],
  placements: FamilyPlacements,
): HttpApiFamily[] {
  return families.map(({ name, routes, needs }) => ({
    name,
    routes,
    ...(needs.timeoutSeconds === undefined
      ? {}
      : { timeout: Duration.seconds(needs.timeoutSeconds) }),
    ...(needs.memoryMb === undefined ? {} : { memorySize: needs.memoryMb }),
    ...(needs.network === undefined ? {} : { network: placements[needs.network] }),
  }));
}

/** What families are granted from: the stack's resources, the optional ones undefined when not deployed. */
export interface FamilyResources {
  readonly grants: ServiceGrants;
  readonly sendableQueues: Readonly<Record<SendableQueue, WorkQueue>>;
  readonly search: SearchDomain;
  readonly secretsKey: SecretsKey;
  readonly sessionSecret: SessionSigningSecret;
  readonly originVerify: OriginVerifySecret;
  /** The console's origin: signed-in changes arrive through its distribution with it. */
  readonly consoleOrigin: string;
  readonly network: ServiceNetwork | undefined;
  readonly models: ModelProvider | undefined;
  readonly bedrock: BedrockModelAccess | undefined;
  readonly connectorApps: ConnectorApps | undefined;
  readonly mail: MailSender | undefined;
}

/** The environment each `FamilyVariable` stands for. */
function familyVariables(
  variable: FamilyVariable,
  resources: FamilyResources,
): Record<string, string> {
  switch (variable) {
    case 'publicUrl':
      // Browsers reach the service at the console's origin.
      return { SVC_PUBLIC_URL: resources.consoleOrigin };
    case 'webhookSourceAddresses':
      // Published at GET /api/v1/webhooks/source-ips; unset without the VPC, which says so.
      return resources.network
        ? {
            SVC_WEBHOOK_SOURCE_IPS: resources.network.egressCidrs,
            SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: resources.network.egressCidrsChangedAt,
          }
        : {};
    case 'deploymentModels':
      // Bedrock first, as the functions that answer pick it (model-providers.ts).
      if (resources.bedrock) {
        return {
          SVC_DEPLOYMENT_MODEL_PROVIDER: 'bedrock',
          SVC_DEPLOYMENT_ANSWER_MODEL: resources.bedrock.answerModel,
        };
      }
      if (resources.models) {
        return {
          SVC_DEPLOYMENT_MODEL_PROVIDER: resources.models.baseUrl ? 'openai_compatible' : 'openai',
        };
      }
      return { SVC_DEPLOYMENT_MODEL_PROVIDER: 'offline' };
  }
}

/**
 * Least privilege for one family's function: what every HTTP family gets,
 * then exactly what its declaration needs, nothing for anyone else.
 *
 * Every HTTP family reads and writes table items (API keys, rate-limit
 * buckets, the outbox live there), checks sessions (the session
 * secret), judges addresses (the origin-verify secret) and checks the
 * console's origin on signed-in changes.
 */
export function connectFamily(
  family: EndpointFamily,
  fn: ServiceFunction,
  resources: FamilyResources,
): void {
  const { needs } = family;
  resources.grants.itemAccess(fn);
  resources.sessionSecret.connect(fn);
  fn.function.addEnvironment('SVC_CONSOLE_ORIGIN', resources.consoleOrigin);
  resources.originVerify.connect(fn);
  if (needs.search) resources.search.grantReadWrite(fn.role);
  // ses:SendEmail for the deployment's identity, when it has one.
  if (needs.mail) resources.mail?.connect(fn);
  for (const queue of needs.sendsTo ?? []) {
    resources.sendableQueues[queue].queue.grantSendMessages(fn.function);
  }
  // Each purpose is sealed where its secrets are made and opened only where they are used.
  for (const { purpose, use } of needs.secretsKey ?? []) {
    if (use === 'seal-and-open') resources.secretsKey.grantSealAndOpen(fn.function, purpose);
    else resources.secretsKey.grantOpen(fn.function, purpose);
  }
  if (needs.connectorApps) resources.connectorApps?.connect(fn);
  for (const variable of needs.environment ?? []) {
    for (const [name, value] of Object.entries(familyVariables(variable, resources))) {
      fn.function.addEnvironment(name, value);
    }
  }
  // A presigned POST or GET is signed with the role, so the role needs the object actions.
  if (needs.files) {
    resources.grants.fileAccess(fn, ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], true);
  }
  if (needs.models) {
    resources.models?.connect(fn);
    resources.bedrock?.connect(fn, needs.models);
  }
}

/**
 * Declarations that cannot be built as they are, found before anything is:
 * the index is only reachable from beside the domain.
 */
export function familyDeclarationProblems(families: readonly EndpointFamily[]): string[] {
  return families.flatMap(({ name, needs }) =>
    needs.search && needs.network !== 'search-domain'
      ? [
          `family "${name}" reads the search index but is not placed beside it (network: 'search-domain')`,
        ]
      : [],
  );
}
