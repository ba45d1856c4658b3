import type { HttpEvent } from './types';

/**
 * The URL the client called, without its query. `requestContext.path` carries the stage or the
 * custom domain's base path, which `event.path` lacks; headers are lower-case after the middy stack.
 */
export const requestUrl = (event: HttpEvent): string => {
  const protocol = event.headers['x-forwarded-proto'] ?? 'https';
  const host = event.headers.host ?? event.requestContext.domainName;
  const path = event.requestContext.path || event.path;
  return `${protocol}://${host}${path.replace(/\/+$/, '')}`;
};
