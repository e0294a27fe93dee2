import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import {
  ApiFirewall,
  COUNTED_COMMON_RULES,
  RATE_LIMIT_PER_ADDRESS,
} from '../../../lib/constructs/api-firewall';

type Rule = { Name: string; Priority: number; Statement: Record<string, any> } & Record<
  string,
  any
>;

function firewallIn(props: { rateLimitPerAddress?: number } = {}) {
  const stack = new Stack(new App(), 'Firewall');
  const api = new apigateway.RestApi(stack, 'Api', { cloudWatchRole: false });
  api.root.addMethod('GET', new apigateway.MockIntegration());
  const firewall = new ApiFirewall(stack, 'Firewall', { stage: api.deploymentStage, ...props });
  return { stack, firewall };
}

/** The web ACL's rules, as synthesized (which runs the construct's validation). */
function rulesOf(stack: Stack): Rule[] {
  const [acl] = Object.values(Template.fromStack(stack).findResources('AWS::WAFv2::WebACL'));
  return (acl?.Properties.Rules ?? []) as Rule[];
}

describe('Class: ApiFirewall', () => {
  it('applies IP reputation, a per-address rate limit, known bad inputs and the common rule set, in that order', () => {
    const rules = rulesOf(firewallIn().stack);

    expect(rules.map((rule) => [rule.Priority, rule.Name])).toEqual([
      [0, 'AWSManagedRulesAmazonIpReputationList'],
      [1, 'RateLimitPerAddress'],
      [2, 'AWSManagedRulesKnownBadInputsRuleSet'],
      [3, 'AWSManagedRulesCommonRuleSet'],
    ]);
    for (const rule of rules.filter((r) => r.Statement.ManagedRuleGroupStatement)) {
      expect(rule.Statement.ManagedRuleGroupStatement).toMatchObject({
        VendorName: 'AWS',
        Name: rule.Name,
      });
      // The groups' own actions apply (block), apart from the overrides below.
      expect(rule.OverrideAction).toEqual({ None: {} });
    }
  });

  it('blocks an address over 10,000 requests in five minutes', () => {
    const rules = rulesOf(firewallIn().stack);

    const rate = rules.find((rule) => rule.Name === 'RateLimitPerAddress');
    expect(RATE_LIMIT_PER_ADDRESS).toBe(10_000);
    expect(rate).toMatchObject({
      Action: { Block: {} },
      Statement: {
        RateBasedStatement: { Limit: 10_000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
      },
    });
  });

  it('counts, instead of blocking, bodies over 8 KB (D4 allows 1 MiB) and markup in bodies', () => {
    const rules = rulesOf(firewallIn().stack);

    const common = rules.find((rule) => rule.Name === 'AWSManagedRulesCommonRuleSet');
    expect(COUNTED_COMMON_RULES).toEqual(['SizeRestrictions_BODY', 'CrossSiteScripting_BODY']);
    expect(common?.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
      { Name: 'CrossSiteScripting_BODY', ActionToUse: { Count: {} } },
    ]);
  });

  it('publishes metrics and samples for the web ACL and every rule', () => {
    const rules = rulesOf(firewallIn().stack);

    for (const rule of rules) {
      expect(rule.VisibilityConfig).toEqual({
        CloudWatchMetricsEnabled: true,
        MetricName: `agent-query-service-${rule.Name}`,
        SampledRequestsEnabled: true,
      });
    }
  });

  it('takes another per-address limit, and refuses one WAF would not accept', () => {
    expect(rulesOf(firewallIn({ rateLimitPerAddress: 500 }).stack)[1]?.Statement).toEqual({
      RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
    });
    expect(firewallIn({ rateLimitPerAddress: 5 }).firewall.node.validate()).toEqual([
      expect.stringMatching(/rateLimitPerAddress must be a whole number from 10/),
    ]);
  });
});
