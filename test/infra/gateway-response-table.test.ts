import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { BookRestApi } from '../../infra/constructs/rest-api';
import {
  AUTHENTICATION_UNAVAILABLE_MESSAGE,
  GATEWAY_BODY_TOO_LARGE_MESSAGE,
  GATEWAY_TIMEOUT_MESSAGE,
  INTERNAL_ERROR_MESSAGE,
} from '../../shared/http/responses';

/** What a configured gateway response answers: its status (none: API Gateway's own is kept), body and Retry-After. */
interface Configured {
  status?: string;
  /** contract: `{status, message}`; message: `{message}` alone; none: an empty body. */
  body: { shape: 'contract'; message: string } | { shape: 'message'; message: string } | { shape: 'none' };
  retryAfter?: boolean;
}
/** A type left to API Gateway's default (it then falls to DEFAULT_4XX or DEFAULT_5XX), and why. */
type Left = { default: string };

/**
 * Every gateway response type API Gateway has (its developer guide's list of GatewayResponse types),
 * each with what this API answers or why the default stands.
 */
const TABLE: Record<string, Configured | Left> = {
  ACCESS_DENIED: { status: '401', body: { shape: 'none' } },
  API_CONFIGURATION_ERROR: { default: 'a broken deployment, not a client: DEFAULT_5XX’s 500 body is the contract’s' },
  AUTHORIZER_CONFIGURATION_ERROR: {
    status: '503',
    body: { shape: 'contract', message: AUTHENTICATION_UNAVAILABLE_MESSAGE },
    retryAfter: true,
  },
  AUTHORIZER_FAILURE: {
    status: '503',
    body: { shape: 'contract', message: AUTHENTICATION_UNAVAILABLE_MESSAGE },
    retryAfter: true,
  },
  BAD_REQUEST_BODY: { default: 'no body validator (validateRequestBody false): the handlers answer 400' },
  BAD_REQUEST_PARAMETERS: { default: 'the only required parameters are path segments, present on every matched route' },
  DEFAULT_4XX: { body: { shape: 'message', message: '$context.error.messageString' } },
  DEFAULT_5XX: { body: { shape: 'message', message: INTERNAL_ERROR_MESSAGE } },
  EXPIRED_TOKEN: { default: 'no IAM (SigV4) authorization on any method' },
  INTEGRATION_FAILURE: { default: 'a Lambda invoke that failed: DEFAULT_5XX’s 500 body' },
  INTEGRATION_TIMEOUT: { status: '504', body: { shape: 'contract', message: GATEWAY_TIMEOUT_MESSAGE } },
  INVALID_API_KEY: { default: 'no method requires an API key' },
  INVALID_SIGNATURE: { default: 'no IAM (SigV4) authorization on any method' },
  MISSING_AUTHENTICATION_TOKEN: { status: '404', body: { shape: 'none' } },
  QUOTA_EXCEEDED: { default: 'no usage plan' },
  REQUEST_TOO_LARGE: { status: '413', body: { shape: 'contract', message: GATEWAY_BODY_TOO_LARGE_MESSAGE } },
  RESOURCE_NOT_FOUND: { status: '404', body: { shape: 'none' } },
  THROTTLED: { default: 'the stage throttle’s 429 through DEFAULT_4XX, status kept, `{message}` body' },
  UNAUTHORIZED: { status: '401', body: { shape: 'none' } },
  UNSUPPORTED_MEDIA_TYPE: { default: 'proxy integrations pass every media type (binaryMediaTypes */*)' },
  WAF_FILTERED: { default: 'only with -c webAclArn, whose own custom responses take precedence' },
};

const ORIGIN = 'https://app.example.com';

/** The gateway responses BookRestApi configures, by type (one origin: CORS fields; none: none). */
const gatewayResponsesOf = (corsAllowedOrigins: string[]) => {
  const stack = new Stack();
  const { api } = new BookRestApi(stack, 'Api', {
    stage: 'dev',
    realm: 'books',
    throttling: { rateLimit: 10, burstLimit: 20 },
    tracing: false,
    removalPolicy: RemovalPolicy.DESTROY,
    corsAllowedOrigins,
  });
  api.root.addMethod('GET', new apigateway.MockIntegration());
  const resources = Template.fromStack(stack).findResources('AWS::ApiGateway::GatewayResponse');
  return new Map(
    Object.values(resources).map(({ Properties }) => [
      Properties.ResponseType as string,
      Properties as {
        StatusCode?: string;
        ResponseParameters: Record<string, string>;
        ResponseTemplates: Record<string, string>;
      },
    ]),
  );
};

const header = (name: string) => `gatewayresponse.header.${name}`;
const configured = Object.entries(TABLE).filter((entry): entry is [string, Configured] => !('default' in entry[1]));

describe('every gateway response type API Gateway has', () => {
  it('is in the table, and the table names no type API Gateway lacks', () => {
    const cdkTypes = Object.entries(apigateway.ResponseType)
      .filter(([, value]) => value instanceof apigateway.ResponseType)
      .map(([name]) => name);
    expect(Object.keys(TABLE).sort()).toEqual(cdkTypes.sort());
  });

  it('is configured exactly where the table says so', () => {
    expect([...gatewayResponsesOf([]).keys()].sort()).toEqual(configured.map(([type]) => type).sort());
  });

  describe.each([
    ['no CORS origin', [] as string[]],
    ['one CORS origin', [ORIGIN]],
  ])('with %s', (_, origins) => {
    const responses = gatewayResponsesOf(origins);
    it.each(configured)('%s answers its status, body and headers', (type, expected) => {
      const response = responses.get(type);
      expect(response?.StatusCode).toBe(expected.status);
      const template = response?.ResponseTemplates['application/json'] ?? '';
      if (expected.body.shape === 'none') expect(template).toBe('');
      else if (expected.body.shape === 'message')
        expect(template.replace('$context.error.messageString', '"$context.error.messageString"')).toBe(
          JSON.stringify({ message: expected.body.message }),
        );
      else expect(JSON.parse(template)).toEqual({ status: Number(expected.status), message: expected.body.message });
      const headers = response?.ResponseParameters ?? {};
      expect(headers[header('Cache-Control')]).toBe("'no-store'");
      expect(headers[header('X-Content-Type-Options')]).toBe("'nosniff'");
      expect(headers[header('Content-Type')]).toBe("'application/json; charset=utf-8'");
      expect(headers[header('Retry-After')]).toBe(expected.retryAfter ? "'1'" : undefined);
      expect(headers[header('Access-Control-Allow-Origin')]).toBe(origins.length > 0 ? `'${ORIGIN}'` : undefined);
    });
  });
});
