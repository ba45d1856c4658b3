import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { IConstruct } from 'constructs';
import { allowHeader, RESOURCE_PATHS } from '../../shared/api/routes';
import { CORS_ALLOWED_HEADERS, CORS_MAX_AGE_SECONDS, corsOriginHeaders } from '../../shared/http/cors';
import { METHOD_NOT_ALLOWED_MESSAGE } from '../../shared/http/responses';
import { GATEWAY_HEADERS } from '../../shared/http/standard-headers';
import { acknowledge } from './acknowledge';

/** Header values as API Gateway's static mapping expressions (a quoted literal). */
export const staticHeaderValues = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/**
 * The body of the gateway's own 405, without `timestamp`: the gateway's only text clock,
 * `$context.requestTime`, is in log format, not the contract's ISO 8601 (docs/contract.md).
 */
export const methodNotAllowedTemplate = JSON.stringify({
  status: 405,
  message: METHOD_NOT_ALLOWED_MESSAGE,
});

/**
 * VTL that grants CORS to a listed origin, in a MOCK integration's response template: the origin is
 * compared with each configured one and, on a match, echoed with `$context.responseOverride`, so an
 * unlisted origin gets no CORS field at all (a static mapping could only name one origin). Index
 * notation, as the field names hold hyphens a VTL property name cannot.
 */
export const corsOverrideTemplate = (origins: readonly string[], extra: Record<string, string> = {}): string => {
  if (origins.length === 0) return '';
  const grant = { ...corsOriginHeaders('$origin'), ...extra };
  return [
    "#set($origin = $input.params().header.get('Origin'))",
    `#if(${origins.map((origin) => `$origin == '${origin}'`).join(' || ')})`,
    ...Object.entries(grant).map(([name, value]) =>
      value === '$origin'
        ? `#set($context.responseOverride.header['${name}'] = $origin)`
        : `#set($context.responseOverride.header['${name}'] = '${value}')`,
    ),
    '#end',
  ].join('\n');
};

/** What a preflight may be told beyond the grant: the path's methods and the headers a request may send. */
const preflightGrant = (allow: string) => ({
  'Access-Control-Allow-Methods': allow,
  'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
  'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
});

/**
 * An answer API Gateway gives from a MOCK integration: whatever the request (its body passed through
 * or not), the one default integration response applies, with the standard headers and `Allow`.
 */
const mockAnswer = (statusCode: string, allow: string, body: string, corsOrigins: readonly string[], grant = {}) => {
  const headers = staticHeaderValues({
    ...GATEWAY_HEADERS,
    Allow: allow,
    ...(body && { 'Content-Type': 'application/json' }),
    ...(corsOrigins.length > 0 && { Vary: 'Origin' }),
  });
  const cors = corsOverrideTemplate(corsOrigins, grant);
  const integration = new apigateway.MockIntegration({
    requestTemplates: { 'application/json': '{"statusCode": 200}' },
    integrationResponses: [
      {
        statusCode,
        responseParameters: Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value]),
        ),
        responseTemplates: { 'application/json': [cors, body].filter(Boolean).join('\n') },
      },
    ],
  });
  const methodResponses = [
    {
      statusCode,
      responseParameters: Object.fromEntries(
        Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
      ),
    },
  ];
  return { integration, methodResponses };
};

/**
 * The methods API Gateway answers itself on every resource of the route table: OPTIONS (204 with
 * `Allow`, a preflight's answer for a listed origin) and ANY (405 with `Allow` and the contract's
 * error body) for every method the path has no route for. Neither needs credentials. API Gateway
 * prefers a resource's explicit methods to ANY, so the routes (and their HEAD) are unaffected.
 */
export const addGatewayMethods = (api: apigateway.RestApi, corsOrigins: readonly string[]) => {
  for (const path of RESOURCE_PATHS) {
    const resource = api.root.resourceForPath(path);
    const allow = allowHeader(path);
    const options = mockAnswer('204', allow, '', corsOrigins, preflightGrant(allow));
    const anyOther = mockAnswer('405', allow, methodNotAllowedTemplate, corsOrigins);
    for (const method of [
      resource.addMethod('OPTIONS', options.integration, { methodResponses: options.methodResponses }),
      resource.addMethod('ANY', anyOther.integration, { methodResponses: anyOther.methodResponses }),
    ]) {
      acknowledgePublic(method);
    }
  }
};

const acknowledgePublic = (method: IConstruct) => {
  acknowledge(
    method,
    'AwsSolutions-APIG4',
    'Answered by API Gateway itself (MOCK): OPTIONS lists the methods and a 405 refuses the others; neither reads or writes data, and browsers send preflights without credentials.',
  );
  acknowledge(
    method,
    'AwsSolutions-COG4',
    'Answered by API Gateway itself (MOCK), without credentials by design (RFC 9110 OPTIONS and 405, CORS preflights).',
  );
};
