#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ConsoleAssetsError, consoleAssetsDirectory } from '../lib/console/console-assets';
import { DeploymentSettingsError, readDeploymentSettings } from '../lib/deployment-settings';
import { ServiceStack } from '../lib/service-stack';

/**
 * The CDK app (`npx cdk synth|deploy`, see docs/deployment/README.md). The
 * deployment environment comes from context: cdk.json says `test`;
 * `-c environment=live` deploys the live stack beside it.
 */
function main(): void {
  const app = new App();
  const settings = readDeploymentSettings(app);

  new ServiceStack(app, `AgentQueryService-${settings.environment}`, {
    settings,
    // Issue 21: the stack serves the console; built here first when web/dist is missing.
    consoleAssetsDirectory: consoleAssetsDirectory(),
    description: `Agent Query Service (${settings.environment}): API, functions, data stores and alarms`,
  });

  // cdk-nag 3 runs as a policy-validation plugin (no longer an Aspect): any
  // unacknowledged finding, error or warning, stops the synth with a report.
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
}

try {
  main();
} catch (error) {
  // A bad context value, or a console that cannot be built, is the operator's
  // to fix: say which, without a stack trace.
  if (!(error instanceof DeploymentSettingsError || error instanceof ConsoleAssetsError))
    throw error;
  console.error(error.message);
  process.exitCode = 1;
}
