import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../layers/core/http/client-address';

export interface ApiFirewallProps {
  /** The API Gateway stage the web ACL protects. */
  readonly stage: apigateway.Stage;
  /**
   * CloudWatch metric name prefix of the web ACL and its rules.
   * @default 'agent-query-service'
   */
  readonly metricPrefix?: string;
  /**
   * Requests one client address may send in five minutes before the web ACL
   * blocks it until its rate falls again. A backstop against floods, far
   * above what the functions' own limits let any one organization use.
   * @default RATE_LIMIT_PER_ADDRESS
   */
  readonly rateLimitPerAddress?: number;
  /**
   * The console distribution's origin secret (a
   * `{{resolve:secretsmanager:…}}` reference). With it, requests carrying it
   * in `X-Svc-Origin-Verify` are counted per viewer address
   * (`X-Svc-Viewer-Address`, `RateLimitPerViewer`) and only the others per
   * socket address (`RateLimitPerAddress`), so the console's users are not
   * pooled behind CloudFront's few edge addresses.
   * @default - one rule, per socket address, for every request
   */
  readonly originVerifyHeaderValue?: string;
}

/**
 * The default per-address limit, in five minutes: twice the largest plan's
 * organization limit (enterprise, 1,000 a minute), so one busy
 * organization behind one NAT address is never blocked by the firewall
 * before the functions' own 429s, while a flood from one address is dropped
 * before it costs an invocation.
 */
export const RATE_LIMIT_PER_ADDRESS = 10_000;

/**
 * Rules of AWSManagedRulesCommonRuleSet switched to count (logged and
 * measured, never blocking), each for a reason of the API's:
 *
 * - `SizeRestrictions_BODY` blocks bodies over 8 KB, but the API accepts JSON
 *   bodies up to 1 MiB: agent system prompts, knowledge-base articles
 *   of up to 200,000 characters. The functions refuse larger bodies
 *   with 413. (Uploaded files never pass the API: they go straight to S3 by
 *   a presigned POST; the presign request itself is a few hundred bytes.)
 * - `CrossSiteScripting_BODY` blocks bodies containing markup such as
 *   `<script>`, but questions, prompts and articles legitimately quote HTML
 *   (a help center for developers); the API answers JSON only, never renders
 *   a body as HTML, and serves a CSP and `nosniff` (SECURITY_HEADERS).
 */
export const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY', 'CrossSiteScripting_BODY'] as const;

/**
 * The web ACL in front of the API stage, in order: addresses on Amazon's
 * threat lists, then a per-address rate limit (with the console's origin
 * secret, two: per socket address for direct callers, per viewer address
 * for the console distribution's requests), then request patterns of
 * known exploits, then AWS's common rule set (OWASP-style checks) with the
 * rules in COUNTED_COMMON_RULES counting instead of blocking. Per-key and
 * per-organization limits stay in the functions; the rate rule only
 * stops floods, including unauthenticated ones, before they invoke anything.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    const prefix = props.metricPrefix ?? 'agent-query-service';
    const rateLimit = props.rateLimitPerAddress ?? RATE_LIMIT_PER_ADDRESS;

    this.node.addValidation({
      validate: () =>
        // WAF's own bounds for a rate-based rule's limit.
        Number.isInteger(rateLimit) && rateLimit >= 10 && rateLimit <= 2_000_000_000
          ? []
          : [
              `rateLimitPerAddress must be a whole number from 10 to 2,000,000,000, got ${rateLimit}`,
            ],
    });

    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${prefix}-${name}`,
      sampledRequestsEnabled: true,
    });
    const managed = (
      name: string,
      ruleActionOverrides?: wafv2.CfnWebACL.RuleActionOverrideProperty[],
    ): Omit<wafv2.CfnWebACL.RuleProperty, 'priority'> => ({
      name,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ruleActionOverrides } },
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
    });
    // A request through the console's distribution carries its secret; no other can.
    const fromConsole: wafv2.CfnWebACL.StatementProperty | undefined =
      props.originVerifyHeaderValue === undefined
        ? undefined
        : {
            byteMatchStatement: {
              fieldToMatch: { singleHeader: { Name: ORIGIN_VERIFY_HEADER.toLowerCase() } },
              positionalConstraint: 'EXACTLY',
              searchString: props.originVerifyHeaderValue,
              textTransformations: [{ priority: 0, type: 'NONE' }],
            },
          };
    const rateRules: Omit<wafv2.CfnWebACL.RuleProperty, 'priority'>[] = [
      {
        name: 'RateLimitPerAddress',
        statement: {
          rateBasedStatement: {
            limit: rateLimit,
            aggregateKeyType: 'IP',
            evaluationWindowSec: 300,
            // Direct callers, and anyone writing the headers without the secret, count by socket.
            ...(fromConsole
              ? { scopeDownStatement: { notStatement: { statement: fromConsole } } }
              : {}),
          },
        },
        action: { block: {} },
        visibilityConfig: visibility('RateLimitPerAddress'),
      },
      ...(fromConsole
        ? [
            {
              name: 'RateLimitPerViewer',
              statement: {
                rateBasedStatement: {
                  limit: rateLimit,
                  aggregateKeyType: 'FORWARDED_IP',
                  // CloudFront's function always writes a valid address; were one ever
                  // unreadable, the request passes on to the functions' own limits.
                  forwardedIpConfig: {
                    headerName: VIEWER_ADDRESS_HEADER,
                    fallbackBehavior: 'NO_MATCH',
                  },
                  evaluationWindowSec: 300,
                  scopeDownStatement: fromConsole,
                },
              },
              action: { block: {} },
              visibilityConfig: visibility('RateLimitPerViewer'),
            },
          ]
        : []),
    ];
    const rules: Omit<wafv2.CfnWebACL.RuleProperty, 'priority'>[] = [
      // Addresses Amazon threat intelligence lists as bots, scanners and worse.
      managed('AWSManagedRulesAmazonIpReputationList'),
      ...rateRules,
      // Request patterns of known exploits (Log4Shell, Java deserialisation, …).
      managed('AWSManagedRulesKnownBadInputsRuleSet'),
      managed(
        'AWSManagedRulesCommonRuleSet',
        COUNTED_COMMON_RULES.map((name) => ({ name, actionToUse: { count: {} } })),
      ),
    ];

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('web-acl'),
      rules: rules.map((rule, priority) => ({ ...rule, priority })),
    });

    const association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage ARN is assembled from strings, not a reference: order it by hand.
    association.node.addDependency(props.stage);
  }
}
