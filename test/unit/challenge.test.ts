import { describe, expect, it } from 'vitest';
import {
  basicChallenge,
  composeChallenge,
  DEFAULT_BASIC_CHALLENGE,
  digestChallenge,
  parseBasicChallenge,
  quote,
} from '../../shared/auth/challenge';

describe('the WWW-Authenticate value', () => {
  const md5 = digestChallenge({ realm: 'books', algorithm: 'MD5', nonce: 'n1', opaque: 'o', stale: false });

  it('writes a Digest challenge with qop, algorithm, nonce, opaque and charset, and stale only when asked', () => {
    expect(md5).toBe('Digest realm="books", qop="auth", algorithm=MD5, nonce="n1", opaque="o", charset="UTF-8"');
    expect(digestChallenge({ realm: 'books', algorithm: 'SHA-256', nonce: 'n2', opaque: 'o', stale: true })).toBe(
      'Digest realm="books", qop="auth", algorithm=SHA-256, nonce="n2", opaque="o", charset="UTF-8", stale=true',
    );
  });

  it("writes the contract's Basic challenge, announcing UTF-8 (RFC 7617 §2.1)", () => {
    expect(basicChallenge('books')).toBe('Basic realm="books", charset="UTF-8"');
  });

  it('quotes a realm with quotes and backslashes', () => {
    expect(quote('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
    expect(basicChallenge('a"b')).toBe('Basic realm="a\\"b", charset="UTF-8"');
  });

  it('puts Basic after the Digest challenges, before them, or leaves it out', () => {
    const basic = 'Basic realm="books", charset="UTF-8"';
    expect(composeChallenge('books', [md5, 'Digest x'], 'last')).toBe(`${md5}, Digest x, ${basic}`);
    expect(composeChallenge('books', [md5, 'Digest x'], 'first')).toBe(`${basic}, ${md5}, Digest x`);
    expect(composeChallenge('books', [md5, 'Digest x'], 'none')).toBe(`${md5}, Digest x`);
  });
});

describe('the basicChallenge option', () => {
  it('defaults to after the Digest challenges, as the client matrix chose', () => {
    expect(DEFAULT_BASIC_CHALLENGE).toBe('last');
    expect(parseBasicChallenge(undefined)).toBe('last');
    expect(parseBasicChallenge('  ')).toBe('last');
  });

  it('reads each placement, in any case and with spaces around', () => {
    expect(parseBasicChallenge('first')).toBe('first');
    expect(parseBasicChallenge(' NONE ')).toBe('none');
    expect(parseBasicChallenge('Last')).toBe('last');
  });

  it('refuses anything else', () => {
    expect(parseBasicChallenge('middle')).toBeUndefined();
    expect(parseBasicChallenge('first,last')).toBeUndefined();
  });
});
