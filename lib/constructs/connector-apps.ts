import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

export interface ConnectorAppsProps {
  /** The secret's name, or its complete ARN. */
  readonly secret: string;
}

/**
 * Issue 12: the connector providers' apps (client id and secret per
 * connector type, one JSON secret the operator creates). Only the functions
 * that sign in to providers or sync connectors may read it; they read it
 * through Powertools Parameters when first needed, so a rotated app secret
 * takes effect without a deploy.
 */
export class ConnectorApps extends Construct {
  readonly secret: secretsmanager.ISecret;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ConnectorAppsProps,
  ) {
    super(scope, id);
    this.secret = props.secret.startsWith('arn:')
      ? secretsmanager.Secret.fromSecretCompleteArn(this, 'Secret', props.secret)
      : secretsmanager.Secret.fromSecretNameV2(this, 'Secret', props.secret);
  }

  connect(target: ServiceFunction): void {
    target.function.addEnvironment('CONNECTOR_APPS_SECRET_ARN', this.props.secret);
    this.secret.grantRead(target.role);
  }
}
