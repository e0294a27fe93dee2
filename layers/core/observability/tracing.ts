import { Tracer } from '@aws-lambda-powertools/tracer';

let tracer: Tracer | undefined;

/**
 * The function's X-Ray tracer (Powertools). It traces only inside Lambda
 * with active tracing; elsewhere (the local runtime, tests) every call is a
 * no-op. Outbound HTTP (`http`, `https`, `fetch`) is captured from the
 * moment it is built; AWS SDK clients are captured one by one with
 * `traceAwsClient`.
 */
export function serviceTracer(): Tracer {
  tracer ??= new Tracer();
  return tracer;
}

/** Records every call of an AWS SDK v3 client as an X-Ray subsegment. */
export function traceAwsClient<T>(client: T): T {
  return serviceTracer().captureAWSv3Client(client);
}
