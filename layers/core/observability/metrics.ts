import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of every metric the service emits (docs/observability.md). */
export const METRICS_NAMESPACE = 'AgentQueryService';

let metrics: Metrics | undefined;

/**
 * The function's metrics (Powertools, CloudWatch embedded metric format):
 * stored during an invocation and written as one log line when it ends
 * (`logMetrics` middleware, or `publishStoredMetrics`). The dimension is the
 * service (`POWERTOOLS_SERVICE_NAME`, the function's family). Built on first
 * use, so the local runtime can turn it off before (it has no CloudWatch).
 */
export function serviceMetrics(): Metrics {
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE });
  return metrics;
}

export { MetricUnit };

/**
 * Writes what this invocation recorded as one EMF line. Nothing when it
 * recorded nothing: Powertools' `logMetrics` would warn about that on every
 * request that records no figure.
 */
export function publishRecordedMetrics(): void {
  const metrics = serviceMetrics();
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
