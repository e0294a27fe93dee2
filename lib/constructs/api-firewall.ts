import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface ApiFirewallProps {
  /** The API Gateway stage the web ACL protects. */
  readonly stage: apigateway.Stage;
  /**
   * CloudWatch metric name prefix of the web ACL and its rules.
   * @default 'agent-query-service'
   */
  readonly metricPrefix?: string;
}

/**
 * AWS managed rule groups that drop known-bad traffic before it costs an
 * invocation. Deliberately without AWSManagedRulesCommonRuleSet: its
 * SizeRestrictions_BODY rule blocks bodies over 8 KB, but the API accepts up
 * to 1 MiB (D4) and KB articles of 200,000 characters (D17). Per-key and
 * per-organization limits are enforced in the functions (D16), so there is no
 * WAF rate rule either: callers behind one NAT would share it.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    const prefix = props.metricPrefix ?? 'agent-query-service';
    const managedGroups = [
      // Addresses Amazon threat intelligence lists as bots, scanners and worse.
      'AWSManagedRulesAmazonIpReputationList',
      // Request patterns of known exploits (Log4Shell, Java deserialisation, …).
      'AWSManagedRulesKnownBadInputsRuleSet',
    ];

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        metricName: `${prefix}-web-acl`,
        sampledRequestsEnabled: true,
      },
      rules: managedGroups.map((name, priority) => ({
        name,
        priority,
        statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
        overrideAction: { none: {} },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: `${prefix}-${name}`,
          sampledRequestsEnabled: true,
        },
      })),
    });

    const association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage ARN is assembled from strings, not a reference: order it by hand.
    association.node.addDependency(props.stage);
  }
}
