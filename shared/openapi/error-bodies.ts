/** Error bodies: the service's own, and those API Gateway writes itself. */

/**
 * A body API Gateway writes itself (its gateway responses, infra/constructs/rest-api.ts). Their
 * templates only substitute variables: no ISO date-time can be written (`$context.requestTime` is in
 * Common Log Format, `$context.requestTimeEpoch` in milliseconds), so these bodies have no
 * `timestamp`; where the gateway keeps a status it chose (DEFAULT_4XX, DEFAULT_5XX) the template
 * cannot name it, so they have no `status` either (docs/contract.md lists them).
 */
export const gatewayErrorBody = (status?: number, message?: string) => ({
  type: 'object',
  description: 'Answered by API Gateway itself, without a timestamp (its templates cannot write an ISO date-time)',
  required: status === undefined ? ['message'] : ['status', 'message'],
  properties: {
    ...(status !== undefined && { status: { const: status } }),
    message: message ? { const: message } : { type: 'string' },
  },
  additionalProperties: false,
});

/** The body the service writes for an error: {timestamp, status, message}. */
export const errorBody = (status: number, message?: string) => ({
  type: 'object',
  required: ['timestamp', 'status', 'message'],
  properties: {
    timestamp: { type: 'string', format: 'date-time' },
    status: { const: status },
    message: message ? { const: message } : { type: 'string' },
  },
});

/** The service's body, or the one API Gateway writes for the same status. */
export const errorBodyOrGateway = (service: object, gateway: object) => ({ anyOf: [service, gateway] });
