import { describe, expect, it } from 'vitest';
import { MAX_AUTHORIZATION_LENGTH, parseAuthorization } from '../../shared/auth/authorization-header';
import { MalformedAuthorizationError } from '../../shared/auth/errors';

const params = (header: string) => {
  const parsed = parseAuthorization(header);
  if (parsed.scheme !== 'digest') throw new Error('not digest');
  return Object.fromEntries(parsed.params);
};

describe('Authorization header parser', () => {
  it('reads Basic token68 credentials, scheme case-insensitive', () => {
    expect(parseAuthorization('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==')).toEqual({
      scheme: 'basic',
      token: 'QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    });
    expect(parseAuthorization('bAsIc QWxh')).toEqual({ scheme: 'basic', token: 'QWxh' });
  });

  it('reads Digest auth-params: quoted strings, escapes, commas inside quotes, case-insensitive names', () => {
    expect(
      params('Digest USERNAME="Mu\\"fa,sa", realm="a, b",nonce=abc ,  uri="/x?y=1,2", qop=auth, NC=00000001'),
    ).toEqual({ username: 'Mu"fa,sa', realm: 'a, b', nonce: 'abc', uri: '/x?y=1,2', qop: 'auth', nc: '00000001' });
  });

  it('takes a cnonce of visible ASCII, spaces and tabs, quoted or as a token: what Authentication-Info echoes', () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
      .join('')
      .replace(/["\\]/g, '\\$&');
    expect(params(`Digest cnonce="\t${printable}"`).cnonce).toBe(
      `\t${Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('')}`,
    );
    expect(params('Digest cnonce=f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ'.replace(/\//g, '_')).cnonce).toBe(
      'f2_wE4q74E6zIJEtWaHKaf5wv_H5QzzpXusqGemxURZJ',
    );
    expect(params('Digest cnonce=""').cnonce).toBe('');
  });

  it.each([
    ['a euro sign', '\u20ac'],
    ['Latin-1 text (obs-text: the echo could not carry it as sent)', 'caf\u00e9'],
    ['a control character', 'a\u0001b'],
    ['DEL', 'a\u007fb'],
    ['an unpaired surrogate', '\ud800'],
    ['a line break', 'a\nb'],
  ])('refuses a cnonce holding %s: it would be echoed into a response header', (_, cnonce) => {
    expect(() => parseAuthorization(`Digest username="u", cnonce="${cnonce}"`)).toThrow(
      new MalformedAuthorizationError('cnonce outside the quoted-string grammar'),
    );
    // Other parameters keep what they may carry: a user name is never echoed.
    expect(params(`Digest username="${cnonce}", cnonce="ok"`).username).toBe(cnonce);
  });

  it('reports other schemes by name', () => {
    expect(parseAuthorization('Bearer abc.def')).toEqual({ scheme: 'other', name: 'bearer' });
  });

  it.each([
    ['a repeated parameter', 'Digest nonce="a", NONCE="b"'],
    ['an unterminated quote', 'Digest username="abc'],
    ['a missing "="', 'Digest username'],
    ['a missing value', 'Digest username='],
    ['garbage between params', 'Digest a=b c=d'],
    ['no parameters', 'Digest'],
    ['no scheme', '  '],
    ['Basic with two tokens', 'Basic abc def'],
    ['Basic without a token', 'Basic'],
    ['an oversized header', `Digest username="${'x'.repeat(MAX_AUTHORIZATION_LENGTH)}"`],
  ])('rejects %s', (_, header) => {
    expect(() => parseAuthorization(header)).toThrow(MalformedAuthorizationError);
  });
});
