import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { originSecretDigest } from '../../shared/auth/viewer-address';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { BASIC_DEMO, prepareFunctionEnvironment } from '../support/local-api';

/**
 * With authorization on, API Gateway accepts a method ARN of at most 1,600 bytes (414 beyond:
 * API Gateway's "Quotas and important notes"); an id of the longest path API Gateway passes on.
 */
const METHOD_ARN_MAX_BYTES = 1_600;
const API = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod';

const longestMethodArn = () => {
  const prefix = `${API}/GET/api/books/`;
  return `${prefix}${'x'.repeat(METHOD_ARN_MAX_BYTES - prefix.length)}`;
};

const event = (methodArn: string, authorization?: string) => {
  const path = methodArn.slice(API.length).replace(/^\/GET/, '');
  return {
    type: 'REQUEST',
    methodArn,
    httpMethod: 'GET',
    path,
    headers: authorization ? { Authorization: authorization } : {},
    multiValueQueryStringParameters: null,
    requestContext: { path: `/prod${path}`, domainName: 'abc123.execute-api.eu-west-1.amazonaws.com' },
  } as unknown as APIGatewayRequestAuthorizerEvent;
};

describe("the authorizer's policy", () => {
  let handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
  let tables: Awaited<ReturnType<typeof prepareFunctionEnvironment>>;
  beforeAll(async () => {
    tables = await prepareFunctionEnvironment();
    ({ handler } = await import('../../functions/authorizer/handler'));
  });

  it('denies the whole API, as it allows it, whatever the length of the path', async () => {
    const methodArn = longestMethodArn();
    expect(Buffer.byteLength(methodArn)).toBe(METHOD_ARN_MAX_BYTES);
    const denied = await handler(event(methodArn));
    const allowed = await handler(event(methodArn, BASIC_DEMO));
    expect(denied.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${API}/*/*` },
    ]);
    expect(allowed.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${API}/*/*` },
    ]);
  });

  it('counts a failure against the viewer address a declared front reports once, and against the peer when the header is repeated', async () => {
    vi.stubEnv('ORIGIN_SECRET_SHA256', originSecretDigest('front-secret'));
    const wrong = `Basic ${Buffer.from('demo:wrong').toString('base64')}`;
    const throughFront = (viewerAddresses: string[]) => {
      const base = event(`${API}/GET/api/books`, wrong);
      return {
        ...base,
        multiValueHeaders: {
          Authorization: [wrong],
          'CloudFront-Viewer-Address': viewerAddresses,
          'X-Origin-Secret': ['front-secret'],
        },
        requestContext: { ...base.requestContext, identity: { sourceIp: '203.0.113.9' } },
      } as unknown as APIGatewayRequestAuthorizerEvent;
    };
    const sourcesCounted = async () =>
      Object.keys(
        (await new DynamoUserStore(tables.documentClient, tables.names.auth).account('demo')).failures?.runs ?? {},
      ).length;
    try {
      await handler(throughFront(['198.51.100.1:1000']));
      await handler(throughFront(['198.51.100.2:1000']));
      expect(await sourcesCounted()).toBe(2);
      // A client's own header before the front's: neither is taken, the peer is counted, once.
      await handler(throughFront(['192.0.2.1:1', '198.51.100.1:1000']));
      await handler(throughFront(['192.0.2.2:1', '198.51.100.1:1000']));
      expect(await sourcesCounted()).toBe(3);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
