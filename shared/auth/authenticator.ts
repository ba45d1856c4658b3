import { parseAuthorization } from './authorization-header';
import { constantTimeEqual, type DigestAlgorithm, digestResponse, ha1, hash } from './digest';
import { MalformedAuthorizationError } from './errors';
import type { NonceCodec } from './nonce';
import { uriMatchesRequest } from './request-target';
import type { AuthRequest, AuthResult, NonceLedger, StoredUser, UserStore } from './types';

export interface AuthenticatorOptions {
  realm: string;
  /** Algorithm offered in challenges; responses must use the one their nonce was issued for. */
  algorithm: DigestAlgorithm;
}

/** HA1 values of a user that cannot exist, so an unknown name costs the same work as a wrong password. */
const NOBODY: StoredUser = {
  username: '\u0000nobody',
  realm: '',
  ha1: { MD5: ha1('MD5', '\u0000', '', ''), 'SHA-256': ha1('SHA-256', '\u0000', '', '') },
};

const parseAlgorithm = (value: string | undefined): DigestAlgorithm | undefined => {
  const upper = (value ?? 'MD5').toUpperCase();
  return upper === 'MD5' || upper === 'SHA-256' ? upper : undefined;
};

/** Basic (RFC 7617) and Digest (RFC 7616, plus the spec's RFC 2069 form) against the user store. */
export class Authenticator {
  private readonly opaque: string;

  constructor(
    private readonly users: UserStore,
    private readonly nonces: NonceLedger,
    private readonly codec: NonceCodec,
    private readonly options: AuthenticatorOptions,
  ) {
    this.opaque = hash('SHA-256', `opaque:${options.realm}`).slice(0, 32);
  }

  /** The one WWW-Authenticate value: a Digest challenge (Basic clients send credentials unprompted). */
  challenge(stale = false): string {
    const realm = this.options.realm.replace(/["\\]/g, '\\$&');
    const nonce = this.codec.issue(this.options.algorithm);
    return (
      `Digest realm="${realm}", qop="auth", algorithm=${this.options.algorithm}, nonce="${nonce}", opaque="${this.opaque}"` +
      (stale ? ', stale=true' : '')
    );
  }

  async authenticate(request: AuthRequest): Promise<AuthResult> {
    if (!request.authorization) return this.deny('no credentials');
    let credentials: ReturnType<typeof parseAuthorization>;
    try {
      credentials = parseAuthorization(request.authorization);
    } catch (error) {
      // The parser's message may quote parts of the header: the reason, which is logged, must not.
      if (error instanceof MalformedAuthorizationError) return this.deny('malformed Authorization header');
      throw error;
    }
    if (credentials.scheme === 'basic') return this.basic(credentials.token);
    if (credentials.scheme === 'digest') return this.digest(credentials.params, request);
    return this.deny('unsupported scheme'); // the "scheme" may be a bare token: never echo it
  }

  private async basic(token: string): Promise<AuthResult> {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return this.deny('malformed Basic credentials');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1); // a password may itself contain ':'
    const user = await this.users.get(username);
    const stored = user?.realm === this.options.realm ? user : NOBODY;
    const given = ha1('SHA-256', username, this.options.realm, password);
    const matches = constantTimeEqual(given, stored.ha1['SHA-256']);
    return matches && stored !== NOBODY ? { ok: true, username, scheme: 'basic' } : this.deny('wrong user or password');
  }

  private async digest(params: ReadonlyMap<string, string>, request: AuthRequest): Promise<AuthResult> {
    const username = params.get('username');
    const nonce = params.get('nonce');
    const uri = params.get('uri');
    const response = params.get('response');
    if (username === undefined || nonce === undefined || uri === undefined || response === undefined) {
      return this.deny('incomplete Digest credentials');
    }
    if (params.get('realm') !== this.options.realm) return this.deny('realm mismatch');
    if (params.has('opaque') && params.get('opaque') !== this.opaque) return this.deny('opaque mismatch');
    if (!uriMatchesRequest(uri, request)) return this.deny('uri does not match the request');
    const algorithm = parseAlgorithm(params.get('algorithm'));
    if (!algorithm) return this.deny('unsupported algorithm');

    const qop = params.get('qop');
    let qopParams: { qop: 'auth'; nc: string; cnonce: string } | undefined;
    if (qop !== undefined) {
      const nc = params.get('nc');
      const cnonce = params.get('cnonce');
      if (qop !== 'auth' || !nc || !/^[0-9a-f]{8}$/i.test(nc) || !cnonce) return this.deny('bad qop parameters');
      qopParams = { qop, nc, cnonce };
    }

    const claims = this.codec.check(nonce);
    if (!claims.valid) return this.deny('unknown nonce');
    if (claims.algorithm !== algorithm) return this.deny('algorithm differs from the nonce');

    const user = await this.users.get(username);
    const stored = user?.realm === this.options.realm ? user : NOBODY;
    const expected = digestResponse({
      algorithm,
      ha1: stored.ha1[algorithm],
      method: request.method,
      uri,
      nonce,
      ...(qopParams && { qop: qopParams }),
    });
    if (!constantTimeEqual(response.toLowerCase(), expected) || stored === NOBODY) {
      return this.deny('wrong user or password');
    }
    if (claims.expired) return this.deny('nonce expired', true);
    if (!(await this.nonces.spend(nonce, this.codec.expiresAt(claims)))) return this.deny('nonce already used', true);
    return { ok: true, username, scheme: 'digest' };
  }

  private deny(reason: string, stale = false): AuthResult {
    return { ok: false, reason, challenge: this.challenge(stale) };
  }
}
