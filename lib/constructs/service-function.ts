import * as fs from 'node:fs';
import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundledFunctionCode } from './function-bundle';

/** The repository root: functions/ lives there. */
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/**
 * Context key through which the stack tells every function below it whether
 * to ship source maps (`functionSourceMaps`, P54), so the constructs in
 * between need not pass it on.
 */
export const SOURCE_MAPS_CONTEXT = 'agent-query-service:functionSourceMaps';

/**
 * The runtime every function uses. ARCHITECTURE asks for Node.js 22+; 24 is
 * the newest this aws-cdk-lib knows, which is what cdk-nag's L1 /
 * LambdaLatestVersion rules check for.
 */
export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_24_X;

export interface ServiceFunctionProps {
  /** Folder under functions/ holding `handler.ts` with a `handler` export. */
  readonly folder: string;
  /** What the function does, shown in the Lambda console. */
  readonly description: string;
  /** Environment variables besides the ones every function gets. */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Memory in MB; CPU scales with it, so it also sets cold-start speed.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * Maximum run time.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Concurrent executions set aside for this function, which is also the
   * most it may run at once.
   * @default - none: the function shares the account's unreserved pool
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Key the log group is encrypted with.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
  /**
   * What happens to the log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Where functions/ is.
   * @default the repository's functions/ folder
   */
  readonly functionsDir?: string;
  /**
   * The VPC to run in, for a function that talks to something only reachable
   * there (P50: the search domain in `live`).
   * @default - outside any VPC
   */
  readonly vpc?: ec2.IVpc;
  /**
   * Subnets of `vpc` the function's network interfaces go in.
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Security groups of the function's network interfaces, with `vpc`.
   * @default - one created for the function, all outbound allowed
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/** What a construct that builds a ServiceFunction passes through to place it in a VPC. */
export type ServiceFunctionNetworkProps = Pick<
  ServiceFunctionProps,
  'vpc' | 'vpcSubnets' | 'securityGroups'
>;

/**
 * What Lambda does with the execution role to attach a function to a VPC
 * (the actions of AWS's AWSLambdaVPCAccessExecutionRole, which a function
 * with a role of its own does not get).
 */
const NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
];

/**
 * What a construct that builds a ServiceFunction passes through unchanged:
 * its log group settings and where functions/ is.
 */
export type ServiceFunctionLogProps = Pick<
  ServiceFunctionProps,
  'logRetention' | 'logEncryptionKey' | 'logRemovalPolicy' | 'functionsDir'
>;

/**
 * One Lambda function built from `functions/<folder>/handler.ts` (ARCHITECTURE,
 * "Cold start"): ARM64, Node.js 24, bundled by esbuild in the synth's own
 * process with only what the handler imports (function-bundle.ts), X-Ray active, its own log group and
 * its own role that starts with nothing but writing to that log group.
 *
 * @example
 * const agents = new ServiceFunction(this, 'Agents', { folder: 'agents', description: 'Agents API' });
 * table.grantReadWriteData(agents.function);
 */
export class ServiceFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const entry = path.join(
      props.functionsDir ?? path.join(PROJECT_ROOT, 'functions'),
      props.folder,
      'handler.ts',
    );
    if (!fs.existsSync(entry)) {
      // NodejsFunction would fail too, but without saying which route family is missing.
      throw new Error(`No handler for function "${props.folder}": ${entry} does not exist`);
    }

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.logEncryptionKey,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // An explicit role instead of the default one with the AWS-managed
    // AWSLambdaBasicExecutionRole (logs:* on every log group): this one may
    // only write to its own log group; grants add the rest.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${props.folder} function`,
    });
    this.logGroup.grantWrite(this.role);

    // P54: source maps only when the deployment asks for them (their
    // runtime flag slows every cold start).
    const sourceMaps = this.node.tryGetContext(SOURCE_MAPS_CONTEXT) === true;
    this.function = new lambda.Function(this, 'Function', {
      code: bundledFunctionCode(entry, { sourceMaps }),
      handler: 'index.handler',
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        POWERTOOLS_SERVICE_NAME: `svc-${props.folder}`,
        ...props.environment,
      },
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    });

    // The function resource depends on its role, policies included, so
    // Lambda finds these permissions when it creates the network interfaces.
    if (props.vpc) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: NETWORK_INTERFACE_ACTIONS, resources: ['*'] }),
      );
    }

    const xray =
      'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions, so their resource must be "*".';
    const networkInterfaces =
      " In a VPC, Lambda manages the function's network interfaces with the role (ec2:CreateNetworkInterface, DescribeNetworkInterfaces, DescribeSubnets, DeleteNetworkInterface, Assign/UnassignPrivateIpAddresses, as in AWSLambdaVPCAccessExecutionRole): the Describe actions have no resource-level permissions and the interfaces do not exist before Lambda creates them.";
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: props.vpc ? `${xray}${networkInterfaces}` : xray,
    });
  }
}
