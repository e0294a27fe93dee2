import * as path from 'node:path';
import {
  CustomResource,
  CustomResourceProvider,
  CustomResourceProviderRuntime,
  Duration,
  Size,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';

export interface ChangeTimeProps {
  /** The value whose changes are timed, usually a token resolved at deploy time. */
  readonly value: string;
}

/** The CloudFormation type of the resource (shown in the stack's events). */
export const CHANGE_TIME_RESOURCE_TYPE = 'Custom::ChangeTime';

/**
 * When a deploy-time value last changed, as an ISO 8601 time. A
 * custom resource whose only property is the value: CloudFormation calls
 * its handler on Create, and on Update only when a property changed, so a
 * redeploy that leaves the value alone leaves the time alone. The handler
 * (change-time-handler/index.js) keeps the time in the physical id, so even
 * an Update for another reason keeps it while the value is the same.
 *
 * The provider is CDK's CustomResourceProvider, one per stack: a small
 * function with no permissions beyond its logs, run only while the stack
 * deploys. (It is a raw CloudFormation resource, which the cdk-nag packs do
 * not inspect; nothing of it is acknowledged.)
 *
 * @example
 * const changed = new ChangeTime(this, 'AddressesChanged', { value: Fn.join(',', addresses) });
 * fn.addEnvironment('SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT', changed.time);
 */
export class ChangeTime extends Construct {
  /** The time the value last changed (a token: `Fn::GetAtt` of the resource). */
  readonly time: string;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: ChangeTimeProps) {
    super(scope, id);
    const provider = CustomResourceProvider.getOrCreateProvider(this, CHANGE_TIME_RESOURCE_TYPE, {
      codeDirectory: path.join(__dirname, 'change-time-handler'),
      runtime: CustomResourceProviderRuntime.NODEJS_24_X,
      description: 'Agent Query Service: records when a deploy-time value last changed',
      memorySize: Size.mebibytes(128),
      timeout: Duration.seconds(10),
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: CHANGE_TIME_RESOURCE_TYPE,
      properties: { Value: props.value },
    });
    this.time = this.resource.getAttString('ChangedAt');
  }
}
