import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAuthParams } from '../../tools/http-auth/challenges';
import { basicAuthorization, digestAuthorization } from '../../tools/http-auth/digest';

const credentials = { username: 'Mufasa', password: 'Circle of Life' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the one client of tools, bench and tests: an Authorization for a WWW-Authenticate field', () => {
  it('answers the first Digest challenge it can, skipping an unknown algorithm and one without qop="auth"', () => {
    const field = [
      'Digest realm="r", qop="auth", algorithm=SHA-999, nonce="unknown-algorithm"',
      'Digest realm="r", qop="auth-int", algorithm=MD5, nonce="no-auth"',
      'Digest realm="books, \\"quoted\\"", qop="auth", algorithm=SHA-256, nonce="n", opaque="o"',
      'Basic realm="r"',
    ].join(', ');
    const answer = parseAuthParams(
      digestAuthorization(field, credentials, 'GET', '/api/books?x=1')?.slice('Digest '.length),
    );
    expect(answer).toMatchObject({
      realm: 'books, "quoted"',
      nonce: 'n',
      opaque: 'o',
      algorithm: 'SHA-256',
      qop: 'auth',
    });
    const ha1 = sha256('Mufasa:books, "quoted":Circle of Life');
    const ha2 = sha256('GET:/api/books?x=1');
    expect(answer.response).toBe(sha256(`${ha1}:n:${answer.nc}:${answer.cnonce}:auth:${ha2}`));
  });

  it('has no answer when no Digest challenge can be answered', () => {
    expect(digestAuthorization('Basic realm="r"', credentials, 'GET', '/')).toBeUndefined();
    expect(
      digestAuthorization('Digest realm="r", algorithm=SHA-999, qop="auth", nonce="n"', credentials, 'GET', '/'),
    ).toBeUndefined();
    expect(digestAuthorization(null, credentials, 'GET', '/')).toBeUndefined();
  });

  it('sends Basic credentials in UTF-8 (RFC 7617)', () => {
    expect(basicAuthorization({ username: 'ü', password: 'é' })).toBe(
      `Basic ${Buffer.from('c3bc3ac3a9', 'hex').toString('base64')}`,
    );
  });
});
