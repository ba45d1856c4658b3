import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { API_INDEX_MESSAGE, apiBase } from '../../shared/openapi/api-index';
import { captureLogs } from '../support/log-capture';
import { contextFor, proxyEventFor } from '../support/proxy-event';

/** The function behind `/` and `/api`, as Lambda calls it with the event API Gateway sends. */
const { handler } = (await import('../../functions/api-index/handler')) as unknown as {
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
};

const logs = captureLogs();
afterAll(() => logs.restore());

const eventFor = (method: string, target: string) => proxyEventFor({ method, target }) as APIGatewayProxyEvent;

/** The same request as it reaches Lambda on AWS: the stage (or a custom domain's base path) in `requestContext.path`. */
const deployed = (target: string, domainName: string, path: string): APIGatewayProxyEvent => {
  const event = eventFor('GET', target);
  return {
    ...event,
    headers: { ...event.headers, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Port': '443' },
    multiValueHeaders: {},
    requestContext: { ...event.requestContext, domainName, path },
  };
};

const call = (event: APIGatewayProxyEvent) => handler(event, contextFor(event, 'GetApiIndex'));

describe('the pointer at / and /api', () => {
  it.each(['/', '/api'])(
    '%s is 200 JSON naming the reference, the document and the books on the local origin',
    async (target) => {
      const response = await call(eventFor('GET', target));
      expect(response.statusCode).toBe(200);
      expect(response.headers?.['Content-Type']).toBe('application/json');
      expect(JSON.parse(response.body)).toStrictEqual({
        message: API_INDEX_MESSAGE,
        links: {
          books: 'http://127.0.0.1:3000/api/books',
          reference: 'http://127.0.0.1:3000/api/docs',
          openapi: 'http://127.0.0.1:3000/api/openapi.json',
        },
      });
      expect(response.headers?.Link).toBe(
        '<http://127.0.0.1:3000/api/docs>; rel="service-doc", <http://127.0.0.1:3000/api/openapi.json>; rel="service-desc"',
      );
    },
  );

  it('answers HEAD with the same Link (the gateway drops the body)', async () => {
    const response = await call(eventFor('HEAD', '/api'));
    expect(response.statusCode).toBe(200);
    expect(response.headers?.Link).toContain('<http://127.0.0.1:3000/api/docs>; rel="service-doc"');
  });

  it.each([
    [
      'the stage',
      'abc123.execute-api.eu-west-1.amazonaws.com',
      '/prod/api',
      'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    ],
    ['a custom domain’s base path', 'books.example.org', '/library/api', 'https://books.example.org/library'],
    ['a custom domain without a base path', 'books.example.org', '/api', 'https://books.example.org'],
  ])('keeps %s in every link', async (_, domainName, path, base) => {
    const response = await call(deployed('/api', domainName, path));
    expect(JSON.parse(response.body).links).toStrictEqual({
      books: `${base}/api/books`,
      reference: `${base}/api/docs`,
      openapi: `${base}/api/openapi.json`,
    });
  });

  it('keeps the stage at the root, where API Gateway’s path ends in a slash', async () => {
    const response = await call(deployed('/', 'abc123.execute-api.eu-west-1.amazonaws.com', '/prod/'));
    expect(JSON.parse(response.body).links.reference).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/api/docs',
    );
  });
});

describe('the API base a route was called on', () => {
  it('is the URL without the resource path', () => {
    expect(apiBase('https://h.example/prod/api', '/api')).toBe('https://h.example/prod');
    expect(apiBase('https://h.example/prod', '/')).toBe('https://h.example/prod');
    expect(apiBase('/api', '/api')).toBe('');
  });
});
