import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ROUTES, type RouteName } from '../api/routes';
import { logger } from '../observability/logger';
import { countResponse } from '../observability/metrics';
import { authorizedRole } from './required-role';
import type { HttpEvent, HttpResponse } from './types';

/** The route table's name for a request (`GetBook`), else `METHOD resource`. */
const routeName = (method: string | undefined, resource: string | undefined): RouteName | `${string} ${string}` =>
  ROUTES.find((route) => route.method === method && route.path === resource)?.name ?? `${method} ${resource}`;

const START = Symbol('accessLogStart');

type AccessLogRequest = Request<HttpEvent, HttpResponse, Error, Context, Record<symbol, number>>;

/**
 * One INFO line per request (request ids, route, method, status, latency, user and role) and a 4xx/5xx
 * count. It reads only the event's routing fields and the authorizer's user and role, never headers, query
 * or body, so credentials cannot reach it. Registered first so it sees the final response, after
 * the error mapping has turned a failure into its status.
 */
export const accessLog = (): MiddlewareObj<HttpEvent, HttpResponse, Error, Context, Record<symbol, number>> => {
  const finish = (request: AccessLogRequest) => {
    const { event } = request;
    const status = request.response?.statusCode ?? 500;
    const route = routeName(event.httpMethod, event.resource);
    const started = request.internal[START];
    const authorized = authorizedRole(event);
    logger.info('Request', {
      requestId: event.requestContext?.requestId,
      awsRequestId: request.context?.awsRequestId,
      route,
      method: event.httpMethod,
      status,
      latencyMs: started === undefined ? undefined : Math.round((performance.now() - started) * 10) / 10,
      user: authorized?.user,
      role: authorized?.role,
    });
    countResponse(route, status);
  };
  return {
    before: (request) => {
      request.internal[START] = performance.now();
    },
    after: finish,
    onError: finish,
  };
};
