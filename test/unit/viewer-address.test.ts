import { describe, expect, it } from 'vitest';
import { addressOfViewer, sourceAddressOf } from '../../shared/auth/viewer-address';

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

  it('is counted only with the configured secret, else the peer is', () => {
    const source = { sourceIp: '130.176.1.1', viewerAddress: '198.51.100.10:1', originSecret: 's3cret' };
    expect(sourceAddressOf(source, 's3cret')).toBe('198.51.100.10');
    expect(sourceAddressOf(source, undefined)).toBe('130.176.1.1');
    expect(sourceAddressOf(source, 'other')).toBe('130.176.1.1');
    expect(sourceAddressOf({ ...source, viewerAddress: 'garbage' }, 's3cret')).toBe('130.176.1.1');
  });
});
