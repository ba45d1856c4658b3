import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import { logger } from '../logger';
import { accessLog } from '../observability/access-log';
import { errorResponses } from './error-responses';
import type { HttpEvent, HttpResponse } from './types';

export interface HttpHandlerOptions {
  /**
   * Route-specific middlewares, run after the normalisers (e.g. `jsonBody()` for POST, PUT, PATCH).
   * They are passed in rather than switched on by a flag, so a route without a body does not bundle
   * a body parser it never calls.
   */
  use?: MiddlewareObj<HttpEvent, HttpResponse>[];
}

/** The middy stack every route shares, around a handler that only parses, calls a use case and shapes the response. */
export const httpHandler = (
  handle: (event: HttpEvent, context: Context) => Promise<HttpResponse>,
  options: HttpHandlerOptions = {},
) => {
  const stack = middy<HttpEvent, HttpResponse>()
    // logEvent pinned off: POWERTOOLS_LOGGER_LOG_EVENT=true would otherwise log Authorization headers and bodies.
    .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
    .use(accessLog() as any)
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer() as any);
  for (const middleware of options.use ?? []) stack.use(middleware);
  return stack.use(errorResponses()).handler(handle);
};
