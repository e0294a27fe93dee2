import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import * as z from 'zod/mini';
import { ENVIRONMENTS, type Environment } from '../../layers/core/domain/environments';
import { describeAwsFailure } from './aws-errors';
import { NotAServiceStackError, StackNotFoundError } from './cli-errors';

/** What the admin CLI needs from a deployed stack (lib/service-stack.ts writes both). */
export interface ServiceStack {
  readonly stackName: string;
  readonly region: string;
  /** The `TableName` output. */
  readonly tableName: string;
  /** The stack's `environment` tag; its keys are of this environment only. */
  readonly environment: Environment;
}

const environmentTag = z.enum(ENVIRONMENTS);

/**
 * Reads a deployed stack's table and environment with DescribeStacks, with
 * the operator's own credentials. The SDK's standard settings apply
 * (`AWS_ENDPOINT_URL_CLOUDFORMATION`, profiles…).
 */
export async function describeServiceStack(options: {
  readonly stackName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentityProvider;
}): Promise<ServiceStack> {
  const { stackName, region } = options;
  const client = new CloudFormationClient({ region, credentials: options.credentials });
  let stack: Stack | undefined;
  try {
    const described = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    stack = described.Stacks?.[0];
  } catch (error) {
    if (isStackNotFound(error)) {
      throw new StackNotFoundError(
        `Stack ${stackName} not found in ${region}: check the name (AgentQueryService-<environment>) and --region`,
        { cause: error },
      );
    }
    throw describeAwsFailure(error, `cloudformation:DescribeStacks on ${stackName} (${region})`);
  } finally {
    client.destroy();
  }
  if (!stack) throw new StackNotFoundError(`Stack ${stackName} not found in ${region}`);
  const tableName = stack.Outputs?.find((output) => output.OutputKey === 'TableName')?.OutputValue;
  if (!tableName) {
    throw new NotAServiceStackError(
      `Stack ${stackName} has no TableName output (status ${stack.StackStatus ?? 'unknown'}): is it an Agent Query Service stack, fully deployed?`,
    );
  }
  const tag = environmentTag.safeParse(stack.Tags?.find((t) => t.Key === 'environment')?.Value);
  if (!tag.success) {
    throw new NotAServiceStackError(
      `Stack ${stackName} has no environment tag of live or test: is it an Agent Query Service stack?`,
    );
  }
  return { stackName, region, tableName, environment: tag.data };
}

/**
 * DescribeStacks answers an unknown name with a 400 `ValidationError` "Stack
 * with id … does not exist"; there is no dedicated exception class to test
 * for, so the status and AWS's documented wording are checked together.
 */
function isStackNotFound(error: unknown): boolean {
  return (
    error instanceof CloudFormationServiceException &&
    error.$metadata.httpStatusCode === 400 &&
    /does not exist/.test(error.message)
  );
}
