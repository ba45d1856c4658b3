/**
 * Hosts and origins, checked before they reach a response header or a URL. Written here because
 * what is checked is the gateway's own data and the Host grammar of RFC 9110 §7.2, narrowed to what a
 * link may carry: a DNS name, an IPv4 address or a bracketed IPv6 literal, and an optional port.
 */

const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9A-Fa-f:.]+\\])$`);
const PORT = /^[0-9]{1,5}$/;

/** A host name or address as a URL may carry it (no user info, no path, nothing outside ASCII). */
const isValidHost = (host: string): boolean => host.length <= 255 && HOST.test(host);

/** A port number, 0 to 65535, as decimal digits. */
const isValidPort = (port: string): boolean => PORT.test(port) && Number(port) <= 65_535;

/** A `Host` field value (RFC 9110 §7.2): `host` or `host:port`. */
export const isValidHostHeader = (value: string): boolean => {
  const colon = value.lastIndexOf(':');
  if (colon < 0 || value.endsWith(']')) return isValidHost(value);
  return isValidHost(value.slice(0, colon)) && isValidPort(value.slice(colon + 1));
};

/**
 * A gateway's `domainName` as host and port. API Gateway's is a bare host name; the SAM CLI's local
 * API puts the request's `Host` there, port included. A value that is not a `Host` field value is
 * returned whole as the host, for originOf to refuse.
 */
export const hostAndPort = (domainName: string): { host: string; port?: string } => {
  const colon = domainName.lastIndexOf(':');
  if (colon < 0 || domainName.endsWith(']') || !isValidHostHeader(domainName)) return { host: domainName };
  return { host: domainName.slice(0, colon), port: domainName.slice(colon + 1) };
};

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * The origin links are built on: the gateway's own host name (on AWS the API's execute-api or custom
 * domain, never the client's `Host`), its protocol and port. Undefined when the host is not one a
 * URL can carry; callers then write links relative to the origin, which RFC 9110 allows.
 */
export const originOf = (parts: { protocol: string; host: string; port?: string }): string | undefined => {
  const protocol = parts.protocol === 'http' ? 'http' : 'https';
  if (!isValidHost(parts.host)) return undefined;
  const port = parts.port !== undefined && isValidPort(parts.port) && parts.port !== DEFAULT_PORTS[protocol];
  return `${protocol}://${parts.host}${port ? `:${parts.port}` : ''}`;
};
