import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import type { Role } from '../shared/auth/roles';
import { AUTHENTICATION_RETRY_AFTER_SECONDS, AUTHENTICATION_UNAVAILABLE_MESSAGE } from '../shared/http/responses';

/** The static challenge of the stack's UNAUTHORIZED gateway response. */
const FALLBACK_CHALLENGE = (realm: string) => `Basic realm="${realm}"`;

const methodArnOf = (event: APIGatewayProxyEvent) =>
  `arn:aws:execute-api:local:000000000000:local/${event.requestContext.stage}/${event.httpMethod}${event.path}`;

/** The REQUEST authorizer event API Gateway derives from a proxy event. */
export const toAuthorizerEvent = (event: APIGatewayProxyEvent): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn: methodArnOf(event),
  resource: event.resource,
  path: event.path,
  httpMethod: event.httpMethod,
  headers: event.headers,
  multiValueHeaders: event.multiValueHeaders,
  pathParameters: event.pathParameters,
  queryStringParameters: event.queryStringParameters,
  multiValueQueryStringParameters: event.multiValueQueryStringParameters,
  stageVariables: event.stageVariables,
  requestContext: { ...event.requestContext, authorizer: undefined },
});

/**
 * A proxy event as a route's function gets it once the authorizer let `user` in with `role`: for
 * tests and benchmarks that invoke a function directly (it refuses a protected route without a user).
 */
export const authorizedAs = (event: APIGatewayProxyEvent, user: string, role: Role): APIGatewayProxyEvent => ({
  ...event,
  requestContext: { ...event.requestContext, authorizer: { principalId: user, user, role } },
});

const wildcard = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** IAM evaluation as API Gateway applies it to an authorizer's policy: an explicit Deny wins, else some Allow is needed. */
export const isAllowed = (result: APIGatewayAuthorizerResult, methodArn: string): boolean => {
  let allowed = false;
  for (const statement of result.policyDocument.Statement) {
    const resources = 'Resource' in statement ? [statement.Resource].flat() : [];
    if (!resources.some((resource) => wildcard(String(resource)).test(methodArn))) continue;
    if (statement.Effect === 'Deny') return false;
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed;
};

/** The AUTHORIZER_FAILURE gateway response: the authorizer threw (its account store throttled or failed). */
export const authorizerFailure = (): APIGatewayProxyResult => ({
  statusCode: 503,
  headers: { 'Retry-After': String(AUTHENTICATION_RETRY_AFTER_SECONDS) },
  body: JSON.stringify({ status: 503, message: AUTHENTICATION_UNAVAILABLE_MESSAGE }),
});

/** The ACCESS_DENIED gateway response: 401 with the authorizer's challenge. */
export const accessDenied = (result: APIGatewayAuthorizerResult, realm: string): APIGatewayProxyResult => ({
  statusCode: 401,
  headers: { 'WWW-Authenticate': String(result.context?.challenge ?? FALLBACK_CHALLENGE(realm)) },
  body: '',
});
