import { routePath } from '../auth/request-target';
import { readSetting } from '../config';
import { hostAndPort, originOf } from './origin';
import type { HttpEvent } from './types';

/**
 * The URL the client called, without its query, on the gateway's own origin: the host is the
 * request context's `domainName` (the API's execute-api or custom domain on AWS; the address the
 * local server listens on), protocol and port are the ones the gateway forwards. The client's
 * `Host` header is never used. `requestContext.path` carries the stage or the custom domain's base
 * path, which `event.path` lacks; headers are lower-case after the middy stack. A port in
 * `domainName` (`sam local start-api` sets it to the request's Host) counts when no port is
 * forwarded. Without a usable origin the URL is relative (a path), which `Location` and `Link` allow.
 * PUBLIC_BASE_URL, when set, takes the place of the origin and the stage or base path.
 */
export const requestUrl = (event: HttpEvent): string => {
  const path = (event.requestContext.path || event.path).replace(/\/+$/, '');
  const publicBase = readSetting('publicBaseUrl');
  if (publicBase) return `${publicBase}${routePath(path, event.resource)}`;
  const { host, port } = hostAndPort(event.requestContext.domainName ?? '');
  const forwardedPort = event.headers['x-forwarded-port'] ?? port;
  const origin = originOf({
    protocol: event.headers['x-forwarded-proto'] ?? 'https',
    host,
    ...(forwardedPort !== undefined && { port: forwardedPort }),
  });
  return `${origin ?? ''}${path}`;
};
