import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Environment } from '../../layers/core/domain/environments';
import { type DeploymentSettings, VPC_AVAILABILITY_ZONES } from './deployment-settings-shape';

export type EnvironmentDefaults = Omit<
  DeploymentSettings,
  | 'environment'
  | 'alarmEmail'
  | 'apiDomain'
  | 'console'
  | 'modelProvider'
  | 'bedrock'
  | 'functionSourceMaps'
  | 'connectorAppsSecret'
  | 'mail'
>;

/**
 * Per-environment defaults. `test` is small and cheap and can be torn down;
 * `live` is zone-aware, has dedicated search masters and keeps logs a year.
 */
export const ENVIRONMENT_DEFAULTS: Readonly<Record<Environment, EnvironmentDefaults>> = {
  test: {
    logRetentionDays: RetentionDays.ONE_MONTH,
    apiThrottleRateLimit: 50,
    apiThrottleBurstLimit: 100,
    apiGatewayCloudWatchRole: true,
    search: {
      instanceType: 't3.small.search',
      instanceCount: 1,
      availabilityZoneCount: 1,
      masterCount: 0,
      masterInstanceType: 'm6g.large.search',
      volumeSizeGiB: 10,
    },
    webhookDispatcherConcurrency: 10,
    syncWorkerConcurrency: 2,
    ingestionWorkerConcurrency: 2,
    // Today's behaviour: no VPC, no NAT gateway, no endpoints to pay for.
    searchNetwork: 'public',
    natGateways: 1,
  },
  live: {
    logRetentionDays: RetentionDays.ONE_YEAR,
    apiThrottleRateLimit: 500,
    apiThrottleBurstLimit: 1000,
    apiGatewayCloudWatchRole: true,
    search: {
      instanceType: 'r6g.large.search',
      instanceCount: 2,
      availabilityZoneCount: 2,
      masterCount: 3,
      masterInstanceType: 'm6g.large.search',
      volumeSizeGiB: 100,
    },
    webhookDispatcherConcurrency: 50,
    syncWorkerConcurrency: 10,
    ingestionWorkerConcurrency: 10,
    // P50: the search domain is not reachable from the internet, and each
    // zone keeps its own way out if the other zone fails.
    searchNetwork: 'vpc',
    natGateways: VPC_AVAILABILITY_ZONES,
  },
};
