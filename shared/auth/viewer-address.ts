import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The viewer's address and port, as CloudFront adds it to requests for its origin when told to. */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';
/** The custom origin header the operator has CloudFront send, holding the secret only the front knows. */
export const ORIGIN_SECRET_HEADER = 'x-origin-secret';

/** What the gateway tells about where a request came from: its peer, and the two front headers if sent once each. */
export interface RequestSource {
  sourceIp: string | undefined;
  viewerAddress: string | undefined;
  originSecret: string | undefined;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * What the function is given of the front's secret: its SHA-256 in hex. Whoever can read the
 * function's configuration then learns nothing that would forge the header (the secret is long and random).
 */
export const originSecretDigest = (secret: string): string => sha256(secret).toString('hex');

/** Equal-length digests, so the comparison takes the same time whatever the presented value. */
const isSecret = (presented: string | undefined, secretDigest: string) =>
  presented !== undefined && timingSafeEqual(sha256(presented), Buffer.from(secretDigest, 'hex'));

/** The address of `198.51.100.10:46532` or `2001:db8::1:46532` (port last); undefined if it is not one. */
export const addressOfViewer = (value: string): string | undefined => {
  const colon = value.lastIndexOf(':');
  const address = value.slice(0, Math.max(colon, 0)).replace(/^\[(.*)\]$/, '$1');
  return isIP(address) === 0 ? undefined : address;
};

/**
 * The address the guessing limit counts. Behind a declared front (a secret's digest configured, and the
 * request carrying it, so it came through that front) it is the viewer's address the front reports;
 * otherwise the gateway's peer, which behind a CDN is an edge address many clients share.
 */
export const sourceAddressOf = (source: RequestSource, secretDigest: string | undefined): string | undefined => {
  if (secretDigest === undefined || !isSecret(source.originSecret, secretDigest)) return source.sourceIp;
  const viewer = source.viewerAddress === undefined ? undefined : addressOfViewer(source.viewerAddress);
  return viewer ?? source.sourceIp;
};
