import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  BEDROCK_DEFAULTS,
  bedrockDimensionsFit,
  inferenceProfileOf,
} from '../layers/core/adapters/ai/bedrock-models';
import { CONTEXT_KEYS, contextSchema, type ParsedContext } from './settings/context-schema';
import {
  type BedrockDeploymentSettings,
  type DeploymentSettings,
  INFERENCE_PROFILE_REGIONS,
  VPC_AVAILABILITY_ZONES,
} from './settings/deployment-settings-shape';
import { ENVIRONMENT_DEFAULTS } from './settings/environment-defaults';

// What a deployment can be told, its defaults and the context's checks each have a module of
// their own under lib/settings/; this one reads them together, and everyone imports from here.
export { CONTEXT_KEYS } from './settings/context-schema';
export {
  type ApiDomainSettings,
  type BedrockDeploymentSettings,
  type ConsoleDomainSettings,
  type ConsoleSettings,
  type DeploymentSettings,
  INFERENCE_PROFILE_REGIONS,
  type MailSettings,
  type ModelProviderSettings,
  SEARCH_NETWORKS,
  type SearchNetwork,
  type SearchSettings,
  VPC_AVAILABILITY_ZONES,
} from './settings/deployment-settings-shape';
export { ENVIRONMENT_DEFAULTS } from './settings/environment-defaults';

/** The address of a From (`Name <address>` or the bare address). */
function fromAddress(from: string): string {
  return (/<([^>]+)>$/.exec(from)?.[1] ?? from).toLowerCase();
}

/** SES sends from an address of the identity: itself, or within its domain. */
function fromFitsIdentity(from: string, identity: string): boolean {
  const address = fromAddress(from);
  if (identity.includes('@')) return address === identity.toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return domain === identity || domain.endsWith(`.${identity}`);
}

/** Thrown for a missing or malformed context value, naming the key and how to set it. */
export class DeploymentSettingsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeploymentSettingsError';
  }
}

function readRawContext(scope: Construct): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value: unknown = scope.node.tryGetContext(key);
    // `-c alarmEmail=` means "not set", not "set to the empty string".
    if (value !== undefined && value !== null && value !== '') raw[key] = value;
  }
  return raw;
}

/**
 * Reads the deployment's CDK context (cdk.json `context`, `-c key=value`),
 * validates it and fills in the environment's defaults. A bad value fails
 * the synth with a message naming the key, before any construct is built.
 */
export function readDeploymentSettings(scope: Construct): DeploymentSettings {
  const raw = readRawContext(scope);
  const parsed = contextSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '(context)');
      const given = key in raw ? ` (got ${JSON.stringify(raw[key])})` : ' (not set)';
      return `context "${key}" ${issue.message}${given}`;
    });
    throw new DeploymentSettingsError(
      `Invalid CDK context: ${problems.join('; ')}. Set it in cdk.json or pass it as -c key=value, e.g. npx cdk synth -c environment=test.`,
    );
  }
  const context = parsed.data;
  const defaults = ENVIRONMENT_DEFAULTS[context.environment];

  if ((context.apiDomainName === undefined) !== (context.apiCertificateArn === undefined)) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "apiDomainName" and "apiCertificateArn" go together; set both or neither.',
    );
  }

  if ((context.consoleDomainName === undefined) !== (context.consoleCertificateArn === undefined)) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "consoleDomainName" and "consoleCertificateArn" go together; set both or neither.',
    );
  }

  if (context.modelBaseUrl !== undefined && context.modelApiKeySecret === undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "modelBaseUrl" needs "modelApiKeySecret" (the secret holding that endpoint\'s API key).',
    );
  }

  const bedrock = bedrockSettingsOf(context);

  if (context.mailFrom !== undefined && context.sesIdentity === undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "mailFrom" needs "sesIdentity" (the SES identity it sends from).',
    );
  }
  if (
    context.mailFrom !== undefined &&
    context.sesIdentity !== undefined &&
    !fromFitsIdentity(context.mailFrom, context.sesIdentity)
  ) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "mailFrom" must be an address of the SES identity "${context.sesIdentity}" (SES sends from no other).`,
    );
  }

  const searchNetwork = context.searchNetwork ?? defaults.searchNetwork;
  const searchAvailabilityZones =
    context.searchAvailabilityZones ?? defaults.search.availabilityZoneCount;
  if (context.environment === 'live' && searchNetwork === 'public') {
    // P50: a live domain with a public endpoint would not pass a security review.
    throw new DeploymentSettingsError(
      'Invalid CDK context: "searchNetwork" must be "vpc" for a live deployment (P50: its search domain is never reachable from the internet); "public" is for test deployments.',
    );
  }
  if (searchNetwork === 'vpc' && searchAvailabilityZones > VPC_AVAILABILITY_ZONES) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "searchAvailabilityZones" must be at most ${VPC_AVAILABILITY_ZONES} with "searchNetwork" "vpc" (got ${searchAvailabilityZones}): the stack is environment-agnostic, so its VPC spans ${VPC_AVAILABILITY_ZONES} zones.`,
    );
  }

  return {
    environment: context.environment,
    logRetentionDays:
      (context.logRetentionDays as RetentionDays | undefined) ?? defaults.logRetentionDays,
    alarmEmail: context.alarmEmail,
    apiThrottleRateLimit: context.apiThrottleRateLimit ?? defaults.apiThrottleRateLimit,
    apiThrottleBurstLimit: context.apiThrottleBurstLimit ?? defaults.apiThrottleBurstLimit,
    apiDomain:
      context.apiDomainName !== undefined && context.apiCertificateArn !== undefined
        ? { domainName: context.apiDomainName, certificateArn: context.apiCertificateArn }
        : undefined,
    console: {
      domain:
        context.consoleDomainName !== undefined && context.consoleCertificateArn !== undefined
          ? { domainName: context.consoleDomainName, certificateArn: context.consoleCertificateArn }
          : undefined,
      webAclArn: context.consoleWebAclArn,
      originSecretGeneration: context.consoleOriginSecretGeneration ?? 0,
    },
    apiGatewayCloudWatchRole: context.apiGatewayCloudWatchRole ?? defaults.apiGatewayCloudWatchRole,
    search: {
      instanceType: context.searchInstanceType ?? defaults.search.instanceType,
      instanceCount: context.searchInstanceCount ?? defaults.search.instanceCount,
      availabilityZoneCount: searchAvailabilityZones,
      masterCount: context.searchMasterCount ?? defaults.search.masterCount,
      masterInstanceType: context.searchMasterInstanceType ?? defaults.search.masterInstanceType,
      volumeSizeGiB: context.searchVolumeGiB ?? defaults.search.volumeSizeGiB,
    },
    webhookDispatcherConcurrency:
      context.webhookDispatcherConcurrency ?? defaults.webhookDispatcherConcurrency,
    syncWorkerConcurrency: context.syncWorkerConcurrency ?? defaults.syncWorkerConcurrency,
    ingestionWorkerConcurrency:
      context.ingestionWorkerConcurrency ?? defaults.ingestionWorkerConcurrency,
    searchNetwork,
    natGateways: context.natGateways ?? defaults.natGateways,
    modelProvider:
      context.modelApiKeySecret === undefined
        ? undefined
        : { apiKeySecret: context.modelApiKeySecret, baseUrl: context.modelBaseUrl },
    bedrock,
    functionSourceMaps: context.functionSourceMaps ?? false,
    connectorAppsSecret: context.connectorAppsSecret,
    mail:
      context.sesIdentity === undefined
        ? undefined
        : { sesIdentity: context.sesIdentity, from: context.mailFrom },
  };
}

/**
 * Issue 32: the Bedrock settings, checked: `modelProvider=bedrock` and an
 * API key secret exclude each other, the `bedrock*` keys need the provider,
 * the dimensions must be the embedding model's, and an inference profile
 * must route to regions the stack knows (or names in `bedrockModelRegions`).
 */
function bedrockSettingsOf(context: ParsedContext): BedrockDeploymentSettings | undefined {
  const keys = [
    'bedrockAnswerModel',
    'bedrockEmbeddingModel',
    'bedrockEmbeddingDimensions',
    'bedrockModelRegions',
  ] as const;
  if (context.modelProvider !== 'bedrock') {
    const stray = keys.find((key) => context[key] !== undefined);
    if (stray) {
      throw new DeploymentSettingsError(
        `Invalid CDK context: "${stray}" needs "modelProvider" "bedrock" (-c modelProvider=bedrock).`,
      );
    }
    return undefined;
  }
  if (context.modelApiKeySecret !== undefined) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "modelProvider" "bedrock" and "modelApiKeySecret" exclude each other; a deployment has one model provider.',
    );
  }
  const embeddingModel = context.bedrockEmbeddingModel ?? BEDROCK_DEFAULTS.embeddingModel;
  if (!bedrockDimensionsFit(embeddingModel, context.bedrockEmbeddingDimensions)) {
    throw new DeploymentSettingsError(
      `Invalid CDK context: "bedrockEmbeddingDimensions" ${context.bedrockEmbeddingDimensions} is not a vector length ${embeddingModel} makes.`,
    );
  }
  const answerModel = context.bedrockAnswerModel ?? BEDROCK_DEFAULTS.answerModel;
  const profile = inferenceProfileOf(answerModel);
  let profileRegions: readonly string[] = [];
  if (profile) {
    const known = INFERENCE_PROFILE_REGIONS[profile.geography];
    profileRegions = context.bedrockModelRegions ?? known ?? [];
    if (!context.bedrockModelRegions && !known) {
      throw new DeploymentSettingsError(
        `Invalid CDK context: the inference profile "${answerModel}" routes to regions this stack does not know; name them in "bedrockModelRegions" (the Bedrock console's Cross-region inference page lists them).`,
      );
    }
  } else if (context.bedrockModelRegions) {
    throw new DeploymentSettingsError(
      'Invalid CDK context: "bedrockModelRegions" is for an inference profile; "bedrockAnswerModel" names a foundation model of the stack\'s region.',
    );
  }
  return {
    answerModel,
    embeddingModel,
    embeddingDimensions: context.bedrockEmbeddingDimensions,
    profileRegions,
  };
}
