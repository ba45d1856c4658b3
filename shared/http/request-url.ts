import { originOf } from './origin';
import type { HttpEvent } from './types';

/**
 * The URL the client called, without its query, on the gateway's own origin: the host is the
 * request context's `domainName` (the API's execute-api or custom domain on AWS; the address the
 * local server listens on), protocol and port are the ones the gateway forwards. The client's
 * `Host` header is never used. `requestContext.path` carries the stage or the custom domain's base
 * path, which `event.path` lacks; headers are lower-case after the middy stack. Without a usable
 * origin the URL is relative (a path), which `Location` and `Link` allow.
 */
export const requestUrl = (event: HttpEvent): string => {
  const origin = originOf({
    protocol: event.headers['x-forwarded-proto'] ?? 'https',
    host: event.requestContext.domainName ?? '',
    ...(event.headers['x-forwarded-port'] !== undefined && { port: event.headers['x-forwarded-port'] }),
  });
  const path = event.requestContext.path || event.path;
  return `${origin ?? ''}${path.replace(/\/+$/, '')}`;
};
