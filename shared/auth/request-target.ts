import type { AuthRequest } from './types';

const decode = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
};

const queryKey = (query: Record<string, string[] | undefined>) =>
  Object.entries(query)
    .flatMap(([name, values]) => (values ?? []).map((value) => `${name}=${value}`))
    .sort()
    .join('&');

/**
 * Whether a Digest `uri` names the request being made (RFC 7616 §3.4.6). The gateway hands the
 * authorizer a decoded path and decoded query values, so both sides are compared decoded, the query
 * as a multiset; an absolute URI is compared by its path and query.
 */
export const uriMatchesRequest = (uri: string, request: AuthRequest): boolean => {
  const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? uri.replace(/^[^:]+:\/\/[^/?#]*/, '') || '/' : uri;
  const [rawPath = '', rawQuery] = target.split('?', 2);
  const path = decode(rawPath.replace(/\+/g, '%2B'));
  if (path === undefined || path !== request.path) return false;
  const query: Record<string, string[]> = {};
  for (const part of (rawQuery ?? '').split('&')) {
    if (!part) continue;
    const [rawName = '', rawValue = ''] = part.split('=', 2);
    const name = decode(rawName);
    const value = decode(rawValue);
    if (name === undefined || value === undefined) return false;
    query[name] = [...(query[name] ?? []), value];
  }
  return queryKey(query) === queryKey(request.query);
};
