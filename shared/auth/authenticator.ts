import { parseAuthorization } from './authorization-header';
import {
  type BasicChallengePlacement,
  composeChallenge,
  DEFAULT_BASIC_CHALLENGE,
  digestChallenge,
  quote,
} from './challenge';
import { constantTimeEqual, type DigestAlgorithm, digestResponse, ha1, hash } from './digest';
import { MalformedAuthorizationError } from './errors';
import { decodeExtValue } from './ext-value';
import { GuessingLimit } from './guessing-limit';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from './lockout';
import type { NonceCodec } from './nonce';
import type { AccountStore, NonceLedger } from './ports';
import { uriMatchesRequest } from './request-target';
import { roleOrReader } from './roles';
import type { Account, AuthDenial, AuthRequest, AuthResult, StoredUser } from './types';

export interface AuthenticatorOptions {
  realm: string;
  /**
   * Digest algorithms offered, one challenge each, in this order (MD5 first by default: wget and
   * digest-fetch answer the first challenge; curl, requests, httpie and Java pick SHA-256 themselves).
   * A response must use an offered algorithm, and the one its nonce was issued for.
   */
  algorithms: readonly DigestAlgorithm[];
  /** The failure limit and lockout schedule (default: DEFAULT_LOCKOUT_POLICY). */
  lockout?: LockoutPolicy;
  /** The clock of the failure limit, epoch milliseconds. */
  now?: () => number;
  /** Where the contract's Basic challenge stands beside the Digest ones (default DEFAULT_BASIC_CHALLENGE). */
  basicChallenge?: BasicChallengePlacement;
}

/** HA1 values of a user that cannot exist, so an unknown name costs the same work as a wrong password. */
const NOBODY: StoredUser = {
  username: '\u0000nobody',
  realm: '',
  ha1: { MD5: ha1('MD5', '\u0000', '', ''), 'SHA-256': ha1('SHA-256', '\u0000', '', '') },
};

/** Denial reasons (logged, never sent): the client gets the same 401 and challenge for both. */
const WRONG = 'wrong user or password';
const LOCKED = 'account locked';
const CHANGED = 'credential changed in flight';

/** Methods that change nothing: a machine credential's request of one is let in on the first read alone. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const parseAlgorithm = (value: string | undefined): DigestAlgorithm | undefined => {
  const upper = (value ?? 'MD5').toUpperCase();
  return upper === 'MD5' || upper === 'SHA-256' ? upper : undefined;
};

type QopParams = { qop: 'auth'; nc: string; cnonce: string };

/** The count a use claims on its nonce: its `nc` (8 hex digits), or 0 for the RFC 2069 form, which has none. */
const useCount = (qop: QopParams | undefined): number => (qop ? Number.parseInt(qop.nc, 16) : 0);

/** Basic (RFC 7617) and Digest (RFC 7616, plus the spec's RFC 2069 form) against the user store. */
export class Authenticator {
  private readonly opaque: string;
  /** Realm and opaque, bound into every nonce's MAC. */
  private readonly nonceBinding: string;
  private readonly limit: GuessingLimit;

  constructor(
    private readonly accounts: AccountStore,
    private readonly nonces: NonceLedger,
    private readonly codec: NonceCodec,
    private readonly options: AuthenticatorOptions,
  ) {
    if (options.algorithms.length === 0) throw new RangeError('At least one Digest algorithm must be offered');
    this.limit = new GuessingLimit(accounts, options.lockout ?? DEFAULT_LOCKOUT_POLICY, options.now);
    this.opaque = hash('SHA-256', `opaque:${options.realm}`).slice(0, 32);
    this.nonceBinding = JSON.stringify([options.realm, this.opaque]);
  }

  /** The one WWW-Authenticate value: a Digest challenge per offered algorithm, and the Basic one. */
  challenge(stale = false): string {
    const { realm, algorithms, basicChallenge = DEFAULT_BASIC_CHALLENGE } = this.options;
    const digest = algorithms.map((algorithm) =>
      digestChallenge({
        realm,
        algorithm,
        nonce: this.codec.issue(algorithm, this.nonceBinding),
        opaque: this.opaque,
        stale,
      }),
    );
    return composeChallenge(realm, digest, basicChallenge);
  }

  async authenticate(request: AuthRequest): Promise<AuthResult> {
    const fields = typeof request.authorization === 'string' ? [request.authorization] : (request.authorization ?? []);
    if (fields.length === 0) return this.deny('no credentials');
    // Authorization is a singleton field (RFC 9110 §11.6.2): two of them name no one credential.
    if (fields.length > 1) return this.deny('repeated Authorization header');
    let credentials: ReturnType<typeof parseAuthorization>;
    try {
      credentials = parseAuthorization(fields[0] as string);
    } catch (error) {
      // The parser's message may quote parts of the header: the reason, which is logged, must not.
      if (error instanceof MalformedAuthorizationError) return this.deny('malformed Authorization header');
      throw error;
    }
    if (credentials.scheme === 'basic') return this.basic(credentials.token, request.sourceAddress, request.method);
    if (credentials.scheme === 'digest') return this.digest(credentials.params, request);
    return this.deny('unsupported scheme'); // the "scheme" may be a bare token: never echo it
  }

  private async basic(token: string, address: string | undefined, method: string): Promise<AuthResult> {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return this.deny('malformed Basic credentials');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1); // a password may itself contain ':'
    const { account, locked } = await this.limit.lookup(username, address);
    const stored = this.storedUser(account);
    // Machine credentials too: a locked source's answer never depends on the secret it sent.
    if (locked) return this.deny(LOCKED);
    const given = ha1('SHA-256', username, this.options.realm, password);
    const matches = constantTimeEqual(given, stored.ha1['SHA-256']);
    if (!matches || stored === NOBODY) return this.failed(username, account, address);
    const admitted = await this.admitted(username, account, address, method);
    if (!admitted) return this.deny(stored.machine ? CHANGED : LOCKED);
    return { ok: true, username, scheme: 'basic', role: roleOrReader(admitted.role) };
  }

  private async digest(params: ReadonlyMap<string, string>, request: AuthRequest): Promise<AuthResult> {
    const username = this.digestUsername(params);
    const nonce = params.get('nonce');
    const uri = params.get('uri');
    const response = params.get('response');
    if (username === undefined || nonce === undefined || uri === undefined || response === undefined) {
      return this.deny('incomplete Digest credentials');
    }
    if (params.get('realm') !== this.options.realm) return this.deny('realm mismatch');
    // Never offered (docs/security.md): a hashed name cannot be looked up, and a plain one sent
    // with userhash=true is a client that read a challenge we did not send.
    if (params.get('userhash')?.toLowerCase() === 'true') return this.deny('userhash not offered');
    // RFC 7616 §3.3: a client returns opaque unchanged when it sends one; the spec's request carries
    // none, and needs none: the nonce's MAC already binds realm and opaque.
    const opaque = params.get('opaque');
    if (opaque !== undefined && opaque !== this.opaque) return this.deny('opaque mismatched');
    if (!uriMatchesRequest(uri, request)) return this.deny('uri does not match the request');
    const algorithm = parseAlgorithm(params.get('algorithm'));
    if (!algorithm || !this.options.algorithms.includes(algorithm)) return this.deny('unsupported algorithm');

    const qop = params.get('qop');
    let qopParams: QopParams | undefined;
    if (qop !== undefined) {
      const nc = params.get('nc');
      const cnonce = params.get('cnonce');
      if (qop !== 'auth' || !nc || !/^[0-9a-f]{8}$/i.test(nc) || !cnonce) return this.deny('bad qop parameters');
      qopParams = { qop, nc, cnonce };
    }

    const claims = this.codec.check(nonce, this.nonceBinding);
    if (!claims.valid) return this.deny('unknown nonce');
    if (claims.algorithm !== algorithm) return this.deny('algorithm differs from the nonce');

    const address = request.sourceAddress;
    const { account, locked } = await this.limit.lookup(username, address);
    const stored = this.storedUser(account);
    // Before the digest is compared, and with no stale flag: a locked account's answers tell nothing.
    if (locked) return this.deny(LOCKED);
    const secret = stored.ha1[algorithm];
    const expected = digestResponse({
      algorithm,
      ha1: secret,
      method: request.method,
      uri,
      nonce,
      ...(qopParams && { qop: qopParams }),
    });
    const right = constantTimeEqual(response.toLowerCase(), expected) && stored !== NOBODY;
    // Counted for a wrong answer too, so that right and wrong make the same calls until the limit
    // admits their outcome: neither is faster to win the account's next write.
    const fresh = !claims.expired && (await this.nonces.use(nonce, useCount(qopParams), this.codec.expiresAt(claims)));
    if (!right) return this.failed(username, account, address);
    // stale=true tells the client the answer was right: only for an answer the limit admits, as a
    // success would be, or a burst of answers on used counts would test passwords uncounted.
    if (!fresh) return this.stale(claims.expired ? 'nonce expired' : 'nonce already used', username, account, address);
    // After the use is recorded: a replayed right answer must not end a run of failures.
    const admitted = await this.admitted(username, account, address, request.method);
    if (!admitted) return this.deny(stored.machine ? CHANGED : LOCKED);
    return {
      ok: true,
      username,
      scheme: 'digest',
      role: roleOrReader(admitted.role),
      authenticationInfo: this.authenticationInfo(algorithm, secret, uri, nonce, qopParams),
    };
  }

  /**
   * `Authentication-Info` (RFC 7616 §3.5): the next nonce, so a client that honours it skips the
   * next challenge, and with qop the server's own proof (`rspauth`: the response digest with an
   * empty method over the nonce the client answered, so a client can check it with what it sent).
   */
  private authenticationInfo(algorithm: DigestAlgorithm, secret: string, uri: string, nonce: string, qop?: QopParams) {
    const nextnonce = this.codec.issue(algorithm, this.nonceBinding);
    if (!qop) return `nextnonce="${nextnonce}"`;
    const rspauth = digestResponse({ algorithm, ha1: secret, method: '', uri, nonce, qop });
    return `nextnonce="${nextnonce}", qop=auth, rspauth="${rspauth}", cnonce=${quote(qop.cnonce)}, nc=${qop.nc}`;
  }

  /** `username`, or `username*` in RFC 8187's encoding (for names a quoted string cannot carry); never both. */
  private digestUsername(params: ReadonlyMap<string, string>): string | undefined {
    const extended = params.get('username*');
    if (extended === undefined) return params.get('username');
    if (params.has('username')) return undefined;
    return decodeExtValue(extended);
  }

  /**
   * A right password or secret: the user as let in (a role changed in flight is the new one), or
   * undefined when it may not be. A person's success is admitted by the guessing limit's conditional
   * write, which also checks the credential version. A machine's writes nothing (its ceiling,
   * docs/security.md): a request that changes data is checked against one strongly consistent read.
   */
  private async admitted(username: string, account: Account, address: string | undefined, method: string) {
    const stored = account.user as StoredUser;
    if (!stored.machine) return this.limit.succeeded(username, account, address);
    if (READ_METHODS.has(method.toUpperCase())) return stored;
    const latest = (await this.accounts.account(username, true)).user;
    const same = latest?.realm === stored.realm && latest.ha1['SHA-256'] === stored.ha1['SHA-256'];
    return same && latest.machine ? latest : undefined;
  }

  /** The user, or NOBODY for a name that is unknown, in another realm, or cannot be stored at all. */
  private storedUser(account: Account): StoredUser {
    return account.user?.realm === this.options.realm ? account.user : NOBODY;
  }

  /** A wrong password or an unknown name: counted against the name, answered alike either way. */
  private async failed(username: string, account: Account, address: string | undefined): Promise<AuthResult> {
    const outcome = await this.limit.failed(username, account, address);
    const denial = this.deny(outcome.counted ? WRONG : LOCKED);
    return outcome.lockoutStarted ? { ...denial, lockoutStarted: true } : denial;
  }

  private async stale(reason: string, username: string, account: Account, address: string | undefined) {
    if (account.user?.machine) return this.deny(reason, true);
    return (await this.limit.rightButStale(username, account, address)) ? this.deny(reason, true) : this.deny(LOCKED);
  }

  private deny(reason: string, stale = false): AuthDenial {
    return { ok: false, reason, challenge: this.challenge(stale) };
  }
}
