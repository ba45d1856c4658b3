import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizedAs, toAuthorizerEvent } from '../local/authorizer-gateway';
import { proxyEventFor } from '../local/gateway';

export interface ApiRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

/** The user every bench request is authorized as (an admin, so every route answers). */
export const BENCH_PRINCIPAL = 'bench';

/** The proxy event for a request, built by the local gateway exactly as `npm start` builds it, an admin let in. */
export const proxyEvent = ({ method, path, query, headers, body }: ApiRequest): APIGatewayProxyEvent => {
  const search = new URLSearchParams(query).toString();
  const event = proxyEventFor({
    method,
    target: search ? `${path}?${search}` : path,
    headers: { ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!event) throw new Error(`No route for ${method} ${path}`);
  return authorizedAs(event, BENCH_PRINCIPAL, 'admin');
};

/** The REQUEST authorizer event API Gateway derives from the same request. */
export const authorizerEvent = (request: ApiRequest): APIGatewayRequestAuthorizerEvent =>
  toAuthorizerEvent(proxyEvent(request));
