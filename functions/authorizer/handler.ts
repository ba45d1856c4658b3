import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { AuthenticationUnavailableError } from '../../shared/auth/errors';
import { clientTarget, queryOfEvent } from '../../shared/auth/request-target';
import { ORIGIN_SECRET_HEADER, sourceAddressOf, VIEWER_ADDRESS_HEADER } from '../../shared/auth/viewer-address';
import { readSetting } from '../../shared/config';
import { originOf } from '../../shared/http/origin';
import { logger } from '../../shared/observability/logger';
import { countAuthenticationDenied } from '../../shared/observability/metrics';
import { getAuthenticator } from './wiring';

/**
 * Every method and path of the stage (ARN: api/stage/method/path): one Allow covers the whole API, and
 * a Deny stays as short whatever the path (the method ARN alone may reach 1,600 bytes).
 */
const wholeApi = (methodArn: string) => methodArn.split('/').slice(0, 2).concat('*', '*').join('/');

/**
 * Every value of a header, whatever the case of its name: `multiValueHeaders` keeps each field the
 * client sent, where `headers` keeps only the last (so a repeated Authorization is seen as such).
 */
const headerValues = (event: APIGatewayRequestAuthorizerEvent, name: string): string[] => {
  const multi = Object.entries(event.multiValueHeaders ?? {}).filter(([key]) => key.toLowerCase() === name);
  if (multi.length > 0) return multi.flatMap(([, values]) => values ?? []);
  return Object.entries(event.headers ?? {})
    .filter(([key, value]) => key.toLowerCase() === name && value !== undefined)
    .map(([, value]) => value as string);
};

/** A header's value when sent exactly once (a repeated one is not the front's alone). */
const singleHeader = (event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined => {
  const values = headerValues(event, name);
  return values.length === 1 ? values[0] : undefined;
};

/** The API's own origin, as the handlers build links on it: the gateway's domain, never the client's Host. */
const ownOrigin = (event: APIGatewayRequestAuthorizerEvent): string | undefined =>
  originOf({
    protocol: headerValues(event, 'x-forwarded-proto')[0] ?? 'https',
    host: event.requestContext.domainName ?? '',
    ...(headerValues(event, 'x-forwarded-port')[0] !== undefined && {
      port: headerValues(event, 'x-forwarded-port')[0] as string,
    }),
  });

/**
 * The request's origin when CORS lets it in: the ACCESS_DENIED gateway response echoes it, since a
 * gateway response can map a header only from the authorizer's context, never choose among origins.
 */
const corsOriginOf = (event: APIGatewayRequestAuthorizerEvent): { corsOrigin?: string } => {
  const [origin, ...more] = headerValues(event, 'origin');
  return origin !== undefined && more.length === 0 && readSetting('corsAllowedOrigins').includes(origin)
    ? { corsOrigin: origin }
    : {};
};

/** The authenticator's verdict; a failure to reach the account store is thrown as AuthenticationUnavailableError. */
const authenticate = async (event: APIGatewayRequestAuthorizerEvent) => {
  try {
    const authenticator = await getAuthenticator();
    const target = clientTarget(
      { path: event.requestContext.path, resource: event.resource, origin: ownOrigin(event) },
      readSetting('publicBaseUrl'),
    );
    return await authenticator.authenticate({
      method: event.httpMethod,
      path: target.path,
      query: queryOfEvent(event),
      origin: target.origin,
      sourceAddress: sourceAddressOf(
        {
          sourceIp: event.requestContext.identity?.sourceIp,
          viewerAddress: singleHeader(event, VIEWER_ADDRESS_HEADER),
          originSecret: singleHeader(event, ORIGIN_SECRET_HEADER),
        },
        readSetting('originSecretSha256'),
      ),
      authorization: headerValues(event, 'authorization'),
    });
  } catch (error) {
    throw new AuthenticationUnavailableError('The account store did not answer', { cause: error });
  }
};

/**
 * REQUEST authorizer. It decides who the user is, never what the user may do: its Allow names the
 * whole API and its context the user's role, which the route's function checks (a 403 with the
 * contract's body, where a Deny could only become the gateway's 401). Missing or bad credentials give a Deny whose context carries the challenge
 * (the gateway's ACCESS_DENIED response turns it into 401 + WWW-Authenticate); it never throws for
 * them. A failure of the account store (throttled, down) is thrown and becomes the gateway's 503.
 */
export const handler = async (
  event: APIGatewayRequestAuthorizerEvent,
  context?: Context,
): Promise<APIGatewayAuthorizerResult> => {
  if (context) logger.addContext(context); // this function's name and request id on its lines
  const result = await authenticate(event);
  if (result.ok) {
    return {
      principalId: result.username,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApi(event.methodArn) }],
      },
      context: {
        user: result.username,
        scheme: result.scheme,
        role: result.role,
        ...(result.authenticationInfo && { authenticationInfo: result.authenticationInfo }),
      },
    };
  }
  // The reason is a fixed phrase; the attempted user name is left out, as people type passwords into it.
  const credentialsPresented = headerValues(event, 'authorization').length > 0;
  logger.info('Authentication failed', {
    reason: result.reason,
    requestId: event.requestContext?.requestId,
    path: event.path,
    method: event.httpMethod,
  });
  countAuthenticationDenied(credentialsPresented, result.lockoutStarted);
  return {
    principalId: 'anonymous',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: wholeApi(event.methodArn) }],
    },
    context: { challenge: result.challenge, ...corsOriginOf(event) },
  };
};
