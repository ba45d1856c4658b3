import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`), as a dual-stack socket reports IPv4 clients. */
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight groups of an IPv6 address, `::` expanded (an embedded IPv4 tail counts as two). */
const ipv6Groups = (address: string): string[] => {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string) =>
    (part === '' ? [] : part.split(':')).flatMap((g) => (g.includes('.') ? ['v4', 'v4'] : [g]));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  return [...left, ...Array(8 - left.length - right.length).fill('0'), ...right].map((g) => g.replace(/^0+(?=.)/, ''));
};

/**
 * Where a client's failures are counted: its IPv4 address, or the /64 prefix of its IPv6 address
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give one
 * client 2^64 fresh runs). Anything else (no address) is one source of its own.
 */
export const clientSource = (address: string | undefined): string => {
  const trimmed = address?.trim() ?? '';
  const mapped = MAPPED_IPV4.exec(trimmed)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(trimmed)) return trimmed;
  if (isIPv6(trimmed)) return `${ipv6Groups(trimmed).slice(0, 4).join(':')}::/64`;
  return 'unknown';
};

/**
 * The short fixed-length tag a failure record keeps for a client source instead of the address
 * itself: 66 bits of SHA-256, so the few sources one record holds never collide in practice.
 */
export const sourceTag = (address: string | undefined): string =>
  createHash('sha256').update(clientSource(address), 'utf8').digest('base64url').slice(0, 11);
