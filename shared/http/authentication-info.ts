import type { MiddlewareObj, Request } from '@middy/core';
import type { HttpEvent, HttpResponse } from './types';

/**
 * Hands a Digest client its `Authentication-Info` (next nonce, server proof), which the authorizer
 * computed and passed through its context: only a function's response can carry a header past API
 * Gateway on success. On every status, since the nonce was spent whatever the handler answered.
 */
export const authenticationInfo = (): MiddlewareObj<HttpEvent, HttpResponse> => {
  const addHeader = (request: Request<HttpEvent, HttpResponse>) => {
    const value = request.event.requestContext?.authorizer?.authenticationInfo;
    if (typeof value !== 'string' || !request.response) return;
    request.response.headers = { ...request.response.headers, 'Authentication-Info': value };
  };
  return { after: addHeader, onError: addHeader };
};
