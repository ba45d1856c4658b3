import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { methodArnOf, toAuthorizerEvent } from '../local/authorizer-gateway';

export interface ApiRequest {
  method: string;
  /** Route resource, e.g. `/api/books/{id}`. */
  resource: string;
  path: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
}

/** The REST proxy event API Gateway sends for a request (stage `bench`). */
export const proxyEvent = (request: ApiRequest): APIGatewayProxyEvent => {
  const headers: Record<string, string> = {
    Host: 'bench.example',
    'X-Forwarded-Proto': 'https',
    ...(request.body !== undefined && { 'Content-Type': 'application/json' }),
    ...request.headers,
  };
  const query = request.query && Object.keys(request.query).length > 0 ? request.query : null;
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query && Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body === undefined ? null : JSON.stringify(request.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: undefined,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'bench' } as APIGatewayProxyEvent['requestContext']['identity'],
      domainName: 'bench.example',
      path: `/bench${request.path}`,
      stage: 'bench',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'bench',
      resourcePath: request.resource,
    },
  };
};

/** The REQUEST authorizer event for the same request. */
export const authorizerEvent = (request: ApiRequest): APIGatewayRequestAuthorizerEvent => {
  const event = proxyEvent(request);
  return { ...toAuthorizerEvent(event), methodArn: methodArnOf(event) };
};
