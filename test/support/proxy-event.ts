import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext, toProxyEvent } from '../../local/gateway';
import { matchRoute } from '../../local/route-matching';

export interface RawRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * The proxy event API Gateway (and the local server) builds for a request, made by the local
 * gateway's own translation so handlers see exactly what they see behind `npm start`; undefined
 * when no route matches (the gateway answers 404 itself).
 */
export const proxyEventFor = (request: RawRequest): APIGatewayProxyEvent | undefined => {
  const url = new URL(request.target, 'http://127.0.0.1');
  const match = matchRoute(request.method, url.pathname);
  if (!match) return undefined;
  const headers = { host: '127.0.0.1', ...request.headers };
  const incoming = {
    rawHeaders: Object.entries(headers).flat(),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1', localPort: 3000 },
  } as unknown as IncomingMessage;
  return toProxyEvent(incoming, url, Buffer.from(request.body ?? '', 'utf8'), match);
};

export const contextFor = (event: APIGatewayProxyEvent, name = 'fuzz') =>
  lambdaContext(name, event.requestContext.requestId);
