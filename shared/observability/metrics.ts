import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { readSetting } from '../config';
import { DIMENSION, METRIC } from './metric-names';

/**
 * CloudWatch metrics in Embedded Metric Format (one JSON log line, no API call). Namespace from
 * POWERTOOLS_METRICS_NAMESPACE (the stack sets it), service from POWERTOOLS_SERVICE_NAME.
 * `POWERTOOLS_METRICS_DISABLED=true` turns emission off (e.g. for quiet local runs).
 */
const metrics = new Metrics({
  namespace: readSetting('metricsNamespace'),
  serviceName: readSetting('serviceName'),
});

/**
 * Writes what was counted, if anything. Powertools' own `logMetrics` middleware warns on every
 * invocation that counted nothing (every 2xx here), so flushing is done only when there is data.
 */
const flush = () => {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
};

/** One count per 4xx or 5xx response, per route; successes are left to API Gateway's own Count. */
export const countResponse = (route: string, statusCode: number): void => {
  const name = statusCode >= 500 ? METRIC.serverError : statusCode >= 400 ? METRIC.clientError : undefined;
  if (!name) return;
  metrics.addDimension(DIMENSION.route, route);
  metrics.addMetric(name, MetricUnit.Count, 1);
  flush();
};

/**
 * An authorizer Deny. A request without credentials is the normal first leg of Digest, so it is
 * counted apart from credentials that were presented and rejected.
 */
export const countAuthenticationDenied = (credentialsPresented: boolean, lockoutStarted = false): void => {
  metrics.addMetric(
    credentialsPresented ? METRIC.authenticationFailure : METRIC.authenticationChallenge,
    MetricUnit.Count,
    1,
  );
  // A failure that locked an account (known or not: the metric tells no more than the answers do).
  if (lockoutStarted) metrics.addMetric(METRIC.accountLockout, MetricUnit.Count, 1);
  flush();
};

/**
 * A streamed response that failed after its status was sent: the client got an unfinished body.
 * It is no 5xx (the status was 200), so it is counted on its own, per route.
 */
export const countTruncatedResponse = (route: string): void => {
  metrics.addDimension(DIMENSION.route, route);
  metrics.addMetric(METRIC.truncatedResponse, MetricUnit.Count, 1);
  flush();
};

/**
 * Stream records whose change event did not reach EventBridge in this invocation (refused, held
 * back behind an earlier one of the same book, or unreadable): Lambda retries them, and what it gives
 * up on goes to the dead-letter queue. Counted even when zero, so the alarm sees the function ran.
 */
export const countUnpublishedChangeEvents = (count: number): void => {
  metrics.addMetric(METRIC.unpublishedChangeEvent, MetricUnit.Count, count);
  flush();
};
