import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/ports';

/** An authorizer whose DynamoDB is unreachable (a port nothing listens on). */
describe('authorizer when DynamoDB is down', () => {
  let handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<unknown>;

  beforeAll(async () => {
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      AUTH_TABLE_NAME: 'auth',
      NONCE_SECRET: 'secret',
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      POWERTOOLS_METRICS_DISABLED: 'true', // EMF lines are not governed by the log level
    });
    ({ handler } = await import('../../functions/authorizer/handler'));
  });

  const event = (authorization?: string) =>
    ({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/GET/api/books',
      httpMethod: 'GET',
      path: '/api/books',
      headers: authorization ? { Authorization: authorization } : {},
      multiValueQueryStringParameters: null,
      requestContext: { path: '/prod/api/books' },
    }) as unknown as APIGatewayRequestAuthorizerEvent;

  it('still challenges a request without credentials: a challenge needs no database', async () => {
    const result = (await handler(event())) as {
      policyDocument: { Statement: { Effect: string }[] };
      context: { challenge: string };
    };
    expect(result.policyDocument.Statement[0]?.Effect).toBe('Deny');
    expect(result.context.challenge).toMatch(/^Digest realm="books"/);
  });

  it('throws (the gateway answers 500) instead of denying valid-looking credentials', async () => {
    const started = Date.now();
    await expect(handler(event(`Basic ${Buffer.from('demo:demo').toString('base64')}`))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000); // bounded by the client's timeouts and retry limit
  });
});
