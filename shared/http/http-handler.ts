import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import { logger } from '../logger';
import { accessLog } from '../observability/access-log';
import { errorResponses } from './error-responses';
import { jsonBody } from './json-body';
import type { HttpEvent, HttpResponse } from './types';

export interface HttpHandlerOptions {
  /** Parse a JSON request body (POST, PUT, PATCH). */
  jsonBody?: boolean;
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
  if (options.jsonBody) stack.use(jsonBody());
  return stack.use(errorResponses()).handler(handle);
};
