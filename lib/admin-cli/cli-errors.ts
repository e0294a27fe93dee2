/**
 * Errors the admin CLI reports as one line (`Error: …`, exit code 1), never
 * with a stack trace: each says what is wrong and what to do about it.
 */
export class CliError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The AWS SDK's credential chain (environment, profile, SSO, instance role…) found nothing. */
export class NoCredentialsError extends CliError {}

/** Neither `--region`, `AWS_REGION` nor the profile names a region. */
export class NoRegionError extends CliError {}

/** DescribeStacks does not know the stack in that account and region. */
export class StackNotFoundError extends CliError {}

/** The stack exists but lacks what an Agent Query Service stack has (the `TableName` output, the `environment` tag). */
export class NotAServiceStackError extends CliError {}

/** An AWS service refused the caller (HTTP 403: missing permission, or rejected credentials). */
export class AccessDeniedError extends CliError {}

/** An AWS service did not answer, or answered with an error the CLI has no advice for. */
export class AwsCallError extends CliError {}

/** The local service's DynamoDB cannot be reached, or its data directory cannot be opened. */
export class LocalDatabaseError extends CliError {}

/** `--env` names the other environment than the stack's. */
export class EnvironmentMismatchError extends CliError {}
