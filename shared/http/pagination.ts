import { encodeCursor } from '../books/cursor';
import { requestUrl } from './request-url';
import type { HttpEvent } from './types';

/** `Link: <url>; rel="next"` (RFC 8288): the same URL and query with the next page's cursor. */
export const nextPageLink = (event: HttpEvent, nextAfter: number): string => {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters)) {
    if (name !== 'cursor' && value !== undefined) query.set(name, value);
  }
  query.set('cursor', encodeCursor(nextAfter));
  return `<${requestUrl(event)}?${query}>; rel="next"`;
};
