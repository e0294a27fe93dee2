import { ServiceUnavailableError } from '../../layers/core/domain/errors';
import { AccessDeniedError, AwsCallError, CliError } from './cli-errors';

interface AwsServiceError {
  readonly message: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * Turns what an AWS SDK call threw into one line naming the service and the
 * action. A 403 is access denied whatever the service calls it (AccessDenied,
 * AccessDeniedException, InvalidClientTokenId…): the protocol status is
 * stable where error names are not. AWS's own message is kept, because it
 * names the missing permission and the resource.
 */
export function describeAwsFailure(error: unknown, action: string): CliError {
  if (error instanceof CliError) return error;
  // The table adapters turn outages and network failures into ServiceUnavailableError; the cause says which.
  const failure = error instanceof ServiceUnavailableError && error.cause ? error.cause : error;
  if (!(failure instanceof Error)) return new AwsCallError(`${action} failed: ${String(failure)}`);
  const status = (failure as AwsServiceError).$metadata?.httpStatusCode;
  if (status === 403) {
    return new AccessDeniedError(`Access denied to ${action}: ${failure.message}`, {
      cause: error,
    });
  }
  return new AwsCallError(`${action} failed: ${oneLine(failure.message)}`, { cause: error });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
