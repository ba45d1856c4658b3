import { Readable } from 'node:stream';
import type { MiddlewareObj, Request } from '@middy/core';
import { readSetting } from '../config';
import { headerValue } from './conditional-requests';
import { corsHeaders } from './cors';
import { withStandardHeaders } from './standard-headers';
import type { HttpEvent, HttpResponse } from './types';

/**
 * Every function answer's `Cache-Control`, `X-Content-Type-Options` and CORS headers, on success and
 * on error alike. A HEAD request runs its GET route's function: a streamed body is dropped before
 * its first item is read (a buffered one is dropped by API Gateway and by Node, which keep the GET's
 * `Content-Length` as RFC 9110 §9.3.2 allows).
 */
export const responseHeaders = (): MiddlewareObj<HttpEvent, HttpResponse> => {
  const finish = (request: Request<HttpEvent, HttpResponse>) => {
    const response = request.response;
    if (!response) return;
    const allowed = readSetting('corsAllowedOrigins');
    // The request's headers are read only when CORS is on: a broken event still gets its 500.
    const origin = allowed.length > 0 ? headerValue(request.event, 'origin') : undefined;
    response.headers = {
      ...withStandardHeaders(request.event.httpMethod, response.statusCode, response.headers),
      ...corsHeaders(origin, allowed),
    };
    const body: unknown = response.body;
    if (request.event.httpMethod === 'HEAD' && body instanceof Readable) {
      body.destroy();
      response.body = '';
    }
  };
  return { after: finish, onError: finish };
};
