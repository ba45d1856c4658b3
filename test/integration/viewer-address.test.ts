import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { originSecretDigest } from '../../shared/auth/viewer-address';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { basicAuthorization } from '../../tools/http-auth/digest';
import { createTestTables } from '../support/dynamodb';

/**
 * Behind CloudFront every request's sourceIp is an edge address many viewers share. With the front
 * declared (ORIGIN_SECRET set, and the request carrying it in X-Origin-Secret), the guessing limit
 * counts the viewer's address from CloudFront-Viewer-Address; without that, the edge's.
 */
const SECRET = 'front-secret-7f3a';
const EDGE = '130.176.1.1';
let handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

beforeAll(async () => {
  const tables = await createTestTables();
  const users = new DynamoUserStore(tables.documentClient, tables.names.auth);
  for (const name of ['trusted', 'unsigned', 'wrong-secret']) await users.put(userRecord(name, 'secret', 'books'));
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: tables.endpoint,
    AUTH_TABLE_NAME: tables.names.auth,
    NONCE_SECRET: 'viewer-address-test',
    AUTH_LOCKOUT_AFTER: '2',
    ORIGIN_SECRET_SHA256: originSecretDigest(SECRET),
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  ({ handler } = await import('../../functions/authorizer/handler'));
});

/** A request CloudFront forwards from `viewer`, with the front headers given. */
const throughEdge = (username: string, password: string, headers: Record<string, string>) =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/books',
    resource: '/api/books',
    path: '/api/books',
    httpMethod: 'GET',
    headers: { Authorization: basicAuthorization({ username, password }), ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      path: '/prod/api/books',
      resourcePath: '/api/books',
      stage: 'prod',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      httpMethod: 'GET',
      requestId: 'viewer-address',
      identity: { sourceIp: EDGE },
    },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

const effect = async (event: APIGatewayRequestAuthorizerEvent) =>
  (await handler(event)).policyDocument.Statement[0]?.Effect;

/** A guesser behind the edge fails until locked out; then another viewer behind it signs in rightly. */
const otherViewerAfterGuessing = async (username: string, frontHeaders: (viewer: string) => Record<string, string>) => {
  for (let attempt = 0; attempt < 3; attempt++)
    expect(await effect(throughEdge(username, 'guess', frontHeaders('203.0.113.66:50000')))).toBe('Deny');
  return effect(throughEdge(username, 'secret', frontHeaders('198.51.100.7:41000')));
};

describe('the guessing limit behind a CloudFront front', () => {
  it('counts the viewer’s address when the request carries the front’s secret', async () => {
    const headers = (viewer: string) => ({ 'CloudFront-Viewer-Address': viewer, 'X-Origin-Secret': SECRET });
    expect(await otherViewerAfterGuessing('trusted', headers)).toBe('Allow');
  });

  it('counts the edge’s address when the viewer header comes without the secret', async () => {
    const headers = (viewer: string) => ({ 'CloudFront-Viewer-Address': viewer });
    expect(await otherViewerAfterGuessing('unsigned', headers)).toBe('Deny');
  });

  it('counts the edge’s address when the secret is wrong', async () => {
    const headers = (viewer: string) => ({ 'CloudFront-Viewer-Address': viewer, 'X-Origin-Secret': `${SECRET}x` });
    expect(await otherViewerAfterGuessing('wrong-secret', headers)).toBe('Deny');
  });
});
