import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import { logger } from '../observability/logger';
import { accessLog } from './access-log';
import { authenticationInfo } from './authentication-info';
import { errorResponses } from './error-responses';
import { requiredRole } from './required-role';
import { responseHeaders } from './response-headers';
import type { HttpEvent, HttpResponse, StreamedHttpResponse } from './types';

export interface HttpHandlerOptions {
  /**
   * Route-specific middlewares, run after the normalisers (e.g. `jsonBody()` for POST, PUT, PATCH).
   * They are passed in rather than switched on by a flag, so a route without a body does not bundle
   * a body parser it never calls.
   */
  use?: MiddlewareObj<HttpEvent, HttpResponse>[];
  /**
   * Lambda response streaming (`awslambda.streamifyResponse`, which middy wraps): the status and
   * headers are sent first, then a Readable body as it is produced. The stack gives such a route's
   * integration the STREAM transfer mode; the local server streams it the same way.
   */
  streaming?: boolean;
}

/**
 * How long before Lambda's timeout the request gives up: middy then rejects it, and the error
 * middleware answers the generic 500 (logged once) instead of Lambda killing the function and API
 * Gateway answering a bodiless 502/504. The DynamoDB client's own limits bound each call; this
 * bounds the whole request (a write makes two calls, more when it retries a lost race).
 */
export const GIVE_UP_BEFORE_TIMEOUT_MS = 500;

/** The middy stack every route shares, around a handler that only parses, calls a use case and shapes the response. */
export const httpHandler = (
  handle: (event: HttpEvent, context: Context) => Promise<HttpResponse | StreamedHttpResponse>,
  options: HttpHandlerOptions = {},
) => {
  const stack = middy<HttpEvent, HttpResponse>({
    timeoutEarlyInMillis: GIVE_UP_BEFORE_TIMEOUT_MS,
    streamifyResponse: options.streaming ?? false,
  })
    // logEvent pinned off: POWERTOOLS_LOGGER_LOG_EVENT=true would otherwise log Authorization headers and bodies.
    .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
    .use(accessLog())
    .use(authenticationInfo())
    .use(responseHeaders())
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    // Before the route's own middlewares: a user without the role learns nothing about its body.
    .use(requiredRole());
  for (const middleware of options.use ?? []) stack.use(middleware);
  // The middlewares read only the status and headers, which a streamed response has as any other.
  return stack.use(errorResponses()).handler(handle as (event: HttpEvent, context: Context) => Promise<HttpResponse>);
};
