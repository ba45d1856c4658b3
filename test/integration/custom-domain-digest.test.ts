import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { challengesOf, parseChallenges } from '../../tools/http-auth/challenges';
import { answerDigest } from '../../tools/http-auth/digest';
import { createTestTables } from '../support/dynamodb';

/**
 * Digest behind a custom domain with a base path mapping (`https://books.example.com/library/…`
 * mapped to the stage). The REQUEST authorizer event then carries, as AWS documents `$context.path`,
 * the path the client sent, base path included, in `requestContext.path`, while `resource` is the
 * route table's path and `requestContext.domainName` the custom domain. The client's Digest `uri` is
 * what it sent, so it names the base path too: the authorizer compares it with `requestContext.path`.
 */
const DOMAIN = 'books.example.com';
const BASE_PATH = '/library';
let handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

beforeAll(async () => {
  const tables = await createTestTables();
  await new DynamoUserStore(tables.documentClient, tables.names.auth).put(userRecord('alice', 'secret', 'books'));
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: tables.endpoint,
    AUTH_TABLE_NAME: tables.names.auth,
    NONCE_SECRET: 'custom-domain-test',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  ({ handler } = await import('../../functions/authorizer/handler'));
});

/** The event API Gateway sends for `GET https://books.example.com/library/api/books?author=Le%20Guin`. */
const customDomainEvent = (authorization?: string): APIGatewayRequestAuthorizerEvent =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/books',
    resource: '/api/books',
    path: `${BASE_PATH}/api/books`,
    httpMethod: 'GET',
    headers: {
      Host: DOMAIN,
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Port': '443',
      ...(authorization && { Authorization: authorization }),
    },
    multiValueHeaders: {},
    queryStringParameters: { author: 'Le Guin' },
    multiValueQueryStringParameters: { author: ['Le Guin'] },
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      path: `${BASE_PATH}/api/books`,
      resourcePath: '/api/books',
      stage: 'prod',
      domainName: DOMAIN,
      httpMethod: 'GET',
      requestId: 'custom-domain',
      identity: { sourceIp: '203.0.113.9' },
    },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

const challengeOf = async () => {
  const denied = await handler(customDomainEvent());
  expect(denied.policyDocument.Statement[0]?.Effect).toBe('Deny');
  const [challenge] = challengesOf(parseChallenges(denied.context?.challenge as string), 'digest');
  if (!challenge) throw new Error('no Digest challenge');
  return challenge;
};

const credentials = { username: 'alice', password: 'secret' };

describe('Digest behind a custom domain with a base path mapping', () => {
  it('allows the uri the client sent, base path included', async () => {
    const { authorization } = answerDigest({
      challenge: await challengeOf(),
      credentials,
      method: 'GET',
      uri: `${BASE_PATH}/api/books?author=Le%20Guin`,
    });
    const result = await handler(customDomainEvent(authorization));
    expect(result.policyDocument.Statement[0]?.Effect).toBe('Allow');
    expect(result.context?.user).toBe('alice');
  });

  it('also as an absolute URI on the custom domain', async () => {
    const { authorization } = answerDigest({
      challenge: await challengeOf(),
      credentials,
      method: 'GET',
      uri: `https://${DOMAIN}${BASE_PATH}/api/books?author=Le%20Guin`,
    });
    expect((await handler(customDomainEvent(authorization))).policyDocument.Statement[0]?.Effect).toBe('Allow');
  });

  it('denies a uri without the base path: it names another request than the one sent', async () => {
    const { authorization } = answerDigest({
      challenge: await challengeOf(),
      credentials,
      method: 'GET',
      uri: '/api/books?author=Le%20Guin',
    });
    expect((await handler(customDomainEvent(authorization))).policyDocument.Statement[0]?.Effect).toBe('Deny');
  });
});
