/**
 * The service's CloudWatch metric names and dimensions, apart from the code that emits them, so the
 * CDK app's alarms name the same metrics without loading Powertools. The namespace and the service
 * dimension's value are settings (`metricsNamespace`, `serviceName` in shared/config.ts).
 */
export const METRIC = {
  clientError: 'ClientErrors',
  serverError: 'ServerErrors',
  authenticationFailure: 'AuthenticationFailures',
  authenticationChallenge: 'AuthenticationChallenges',
  accountLockout: 'AccountLockouts',
  truncatedResponse: 'TruncatedResponses',
  unpublishedChangeEvent: 'UnpublishedChangeEvents',
} as const;

/** Dimension names: Powertools adds `service` to every metric; the responses' counts add `route`. */
export const DIMENSION = {
  service: 'service',
  route: 'route',
} as const;
