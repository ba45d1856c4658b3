import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { BookRestApi } from '../../infra/constructs/rest-api';
import { type Configured, GATEWAY_RESPONSE_TABLE as TABLE } from '../support/gateway-response-table';

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
