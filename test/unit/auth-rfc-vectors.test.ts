import { describe, expect, it } from 'vitest';
import { digestResponse, ha1 } from '../../shared/auth/digest';

describe('Digest computation', () => {
  const rfc7616 = {
    username: 'Mufasa',
    password: 'Circle of Life',
    realm: 'http-auth@example.org',
    nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
    cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    uri: '/dir/index.html',
  };

  it.each([
    ['MD5', '8ca523f5e9506fed4657c9700eebdbec'],
    ['SHA-256', '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1'],
  ] as const)('matches RFC 7616 §3.9.1 with %s', (algorithm, expected) => {
    const { username, password, realm, nonce, cnonce, uri } = rfc7616;
    expect(
      digestResponse({
        algorithm,
        ha1: ha1(algorithm, username, realm, password),
        method: 'GET',
        uri,
        nonce,
        qop: { qop: 'auth', nc: '00000001', cnonce },
      }),
    ).toBe(expected);
  });

  it('matches RFC 2617 §3.5', () => {
    expect(
      digestResponse({
        algorithm: 'MD5',
        ha1: ha1('MD5', 'Mufasa', 'testrealm@host.com', 'Circle Of Life'),
        method: 'GET',
        uri: '/dir/index.html',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
        qop: { qop: 'auth', nc: '00000001', cnonce: '0a4f113b' },
      }),
    ).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('computes the spec’s legacy form without qop: MD5(HA1:nonce:HA2)', () => {
    // RFC 2069 §2.4's example, the form the spec shows.
    expect(
      digestResponse({
        algorithm: 'MD5',
        ha1: ha1('MD5', 'Mufasa', 'testrealm@host.com', 'CircleOfLife'),
        method: 'GET',
        uri: '/dir/index.html',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      }),
    ).toBe('1949323746fe6a43ef61f9606e7febea');
  });
});
