import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { SearchDomain } from './search-domain';
import { ServiceFunction, type ServiceFunctionNetworkProps } from './service-function';

/** One embedder whose chunk index must exist: its `Embedder.id` and vector length. */
export interface IndexedEmbedder {
  readonly id: string;
  readonly dimensions: number;
}

/**
 * With a domain in a VPC, the bootstrap must run there too (`vpc`,
 * `vpcSubnets`, `securityGroups`): it calls the domain's endpoint.
 */
export interface SearchIndexBootstrapProps extends ServiceFunctionNetworkProps {
  /** The domain the indexes live in; the bootstrap's role is granted on it. */
  readonly search: SearchDomain;
  /** Index name prefix (`<prefix>-<embedder slug>`), the one the retrieval adapter uses. */
  readonly indexPrefix: string;
  /** Every embedder the deployment's functions may embed with: one index each. */
  readonly embedders: readonly IndexedEmbedder[];
  /**
   * The index definition's version (`DEFINITION_VERSION`). Not read by the
   * handler: a new value is what makes CloudFormation send an Update, so a
   * mapping change reaches deployed domains.
   */
  readonly definitionVersion: number;
  /** Key of the log groups. */
  readonly logEncryptionKey: kms.IKey;
  /**
   * Retention of the bootstrap's and the provider's log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the log groups when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Where functions/ is.
   * @default the repository's functions/ folder
   */
  readonly functionsDir?: string;
}

/** The CloudFormation type of the resource (shown in the stack's events). */
export const SEARCH_INDEXES_RESOURCE_TYPE = 'Custom::SearchIndexes';

/**
 * Creates the OpenSearch chunk indexes on deploy (docs/opensearch.md): a
 * custom resource whose provider runs functions/search-index-bootstrap on
 * Create and Update (Delete leaves the indexes, which hold the
 * organizations' chunks, alone). It runs after the domain, and with it the
 * access policy naming the bootstrap's role, is in place.
 *
 * The provider is CDK's framework (`custom_resources.Provider`): its own small
 * function relays CloudFormation's request to the bootstrap and the answer
 * back. It gets a role that may only invoke the bootstrap and write its own
 * log group, and a log group with the stack's retention and key.
 */
export class SearchIndexBootstrap extends Construct {
  /** The bootstrap function (functions/search-index-bootstrap). */
  readonly handler: ServiceFunction;
  readonly provider: cr.Provider;
  /** Role of the provider framework's function. */
  readonly frameworkRole: iam.Role;
  readonly frameworkLogGroup: logs.LogGroup;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: SearchIndexBootstrapProps) {
    super(scope, id);
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const logRemovalPolicy = props.logRemovalPolicy ?? RemovalPolicy.RETAIN;
    const embedders = JSON.stringify(props.embedders);

    this.node.addValidation({
      validate: () =>
        props.embedders.length === 0
          ? ['embedders must name at least one embedder (one chunk index each)']
          : [],
    });

    this.handler = new ServiceFunction(this, 'Function', {
      folder: 'search-index-bootstrap',
      description: 'Agent Query Service: creates the OpenSearch chunk indexes on deploy',
      // 10 s requests, outages retried with 1, 2, 4, 8 s back-off, per embedder.
      timeout: Duration.minutes(5),
      memorySize: 512,
      environment: {
        OPENSEARCH_ENDPOINT: props.search.domainEndpoint,
        SEARCH_INDEX_PREFIX: props.indexPrefix,
        SEARCH_EMBEDDERS: embedders,
      },
      logRetention,
      logEncryptionKey: props.logEncryptionKey,
      logRemovalPolicy,
      functionsDir: props.functionsDir,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    });
    props.search.grantReadWrite(this.handler.role);
    Validations.of(this.handler.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "Invoked only by the custom resource provider's framework function, synchronously (RequestResponse), once per deployment step; a failure fails that step in CloudFormation with the error, so there is no asynchronous event to keep.",
    });

    this.frameworkLogGroup = new logs.LogGroup(this, 'ProviderLogs', {
      retention: logRetention,
      encryptionKey: props.logEncryptionKey,
      removalPolicy: logRemovalPolicy,
    });
    // Instead of the framework's default role with the AWS-managed
    // AWSLambdaBasicExecutionRole: its own log group only. The Provider adds
    // invoking (and lambda:GetFunction on) the bootstrap function.
    this.frameworkRole = new iam.Role(this, 'ProviderRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Execution role of the search index custom resource provider',
    });
    this.frameworkLogGroup.grantWrite(this.frameworkRole);

    this.provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.handler.function,
      frameworkOnEventRole: this.frameworkRole,
      logGroup: this.frameworkLogGroup,
    });

    this.resource = new CustomResource(this, 'Indexes', {
      serviceToken: this.provider.serviceToken,
      resourceType: SEARCH_INDEXES_RESOURCE_TYPE,
      // Not read by the handler (it reads its environment): a change here is
      // what makes CloudFormation send Update, and so re-run the bootstrap.
      properties: {
        IndexPrefix: props.indexPrefix,
        Embedders: embedders,
        DefinitionVersion: props.definitionVersion,
        // A replaced domain gets its indexes too.
        DomainEndpoint: props.search.domainEndpoint,
      },
    });
    // The domain, and its access policy naming the bootstrap's role, first.
    this.resource.node.addDependency(props.search.domain);

    this.acknowledgeFrameworkFindings();
  }

  /**
   * The provider framework's function is CDK's: its code, memory and tracing
   * are not ours to set. What can be set through the Provider's props is (its
   * role, its log group); the rest is acknowledged on that function and role
   * only.
   */
  private acknowledgeFrameworkFindings(): void {
    const framework = this.provider.node.tryFindChild('framework-onEvent');
    if (!(framework instanceof lambda.Function)) {
      throw new Error(`${this.node.path}: the provider framework's onEvent function moved`);
    }
    const handlerLogicalId = Stack.of(this).getLogicalId(
      this.handler.function.node.defaultChild as lambda.CfnFunction,
    );
    Validations.of(this.frameworkRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${handlerLogicalId}.Arn>:*]`,
      reason:
        "The Provider grants invoking the bootstrap function's versions and aliases (`<function ARN>:*`) beside the function itself; the wildcard covers that one function only.",
    });
    const deployOnly =
      'It runs only during deployments, for a few seconds, to relay one CloudFormation request to the bootstrap function and its answer back; it is code the CDK ships (custom_resources.Provider), not the service’s.';
    Validations.of(framework).acknowledge(
      {
        id: 'Serverless-LambdaTracing',
        reason: `X-Ray would trace a relay call per deployment; the bootstrap function it invokes is traced. ${deployOnly}`,
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason: `CloudFormation invokes it asynchronously and waits for its answer on a presigned URL; an event that is never answered fails the deployment step at CloudFormation's timeout and the deployment rolls back, so a dead letter could only answer a request CloudFormation has given up on. ${deployOnly}`,
      },
      {
        id: 'Serverless-LambdaDefaultMemorySize',
        reason: `It only relays a request (no work of its own), which the default 128 MB suits. ${deployOnly}`,
      },
    );
  }
}
