import { describe, expect, it } from 'vitest';
import { addressOfViewer, originSecretDigest, sourceAddressOf } from '../../shared/auth/viewer-address';

describe('CloudFront-Viewer-Address', () => {
  it('gives the address before the port, IPv4 or IPv6', () => {
    expect(addressOfViewer('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(addressOfViewer('2001:db8::1:46532')).toBe('2001:db8::1');
    expect(addressOfViewer('[2001:db8::1]:46532')).toBe('2001:db8::1');
  });

  it('gives nothing for a value that names no address', () => {
    for (const value of ['', '46532', 'example.com:443', '198.51.100.10', '1[::1]:443', '[::1]1:443'])
      expect(addressOfViewer(value), value).toBe(undefined);
  });

  it('is counted only when the request carries the secret whose digest is configured, else the peer is', () => {
    const source = { sourceIp: '130.176.1.1', viewerAddress: '198.51.100.10:1', originSecret: 's3cret' };
    const configured = originSecretDigest('s3cret');
    expect(sourceAddressOf(source, configured)).toBe('198.51.100.10');
    expect(sourceAddressOf(source, undefined)).toBe('130.176.1.1');
    expect(sourceAddressOf(source, originSecretDigest('other'))).toBe('130.176.1.1');
    // The digest itself, sent as the header, is not the secret.
    expect(sourceAddressOf({ ...source, originSecret: configured }, configured)).toBe('130.176.1.1');
    expect(sourceAddressOf({ ...source, originSecret: undefined }, configured)).toBe('130.176.1.1');
    expect(sourceAddressOf({ ...source, viewerAddress: 'garbage' }, configured)).toBe('130.176.1.1');
  });

  it('gives the function the SHA-256 of the secret, in hex', () => {
    expect(originSecretDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
