import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { NonceCodec } from '../../shared/auth/nonce';
import type { Account, AuthRequest, StoredUser } from '../../shared/auth/types';
import { MemoryNonceLedger, MemoryUserStore } from '../support/memory-auth-store';

/**
 * Machine credentials (docs/security.md, "Machine credentials"): a right secret writes nothing; a
 * request that changes data is checked against one strongly consistent read of the account, so a
 * secret replaced or a role changed while the request was in flight counts, and a read is not.
 */

const REALM = 'books';
const SECRET = 'a-generated-machine-secret-of-enough-bits';
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** A user store that can change an account between the authorizer's first read and its strongly consistent one. */
class InFlightUserStore extends MemoryUserStore {
  strongReads = 0;
  beforeStrongRead: () => Promise<void> = async () => {};
  override async account(username: string, latest = false): Promise<Account> {
    if (latest) {
      this.strongReads += 1;
      await this.beforeStrongRead();
    }
    return super.account(username, latest);
  }
}

const machine = (secret = SECRET, extra: Partial<StoredUser> = {}): StoredUser => ({
  ...userRecord('robot', secret, REALM),
  machine: true,
  role: 'editor',
  ...extra,
});
const basic = (secret = SECRET) => `Basic ${Buffer.from(`robot:${secret}`).toString('base64')}`;
const request = (method: string, authorization: string): AuthRequest => ({
  method,
  path: '/api/books',
  query: {},
  authorization,
});

describe('a machine credential', () => {
  let users: InFlightUserStore;
  let auth: Authenticator;

  beforeEach(async () => {
    users = new InFlightUserStore();
    await users.put(machine());
    auth = new Authenticator(users, new MemoryNonceLedger(), new NonceCodec(Buffer.from('s'), 300, () => 1e9), {
      realm: REALM,
      algorithms: ['MD5'],
    });
  });

  it('reads with its secret without a strongly consistent read, and writes nothing', async () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(await auth.authenticate(request(method, basic()))).toMatchObject({ ok: true, role: 'editor' });
    }
    expect(users.strongReads).toBe(0);
    expect(users.writes).toEqual([]);
  });

  it('changes data after one strongly consistent read, with the role as it is now', async () => {
    users.beforeStrongRead = async () => {
      await users.setRole('robot', 'admin');
    };
    expect(await auth.authenticate(request('POST', basic()))).toMatchObject({ ok: true, role: 'admin' });
    expect(users.strongReads).toBe(1);
    expect(users.writes).toEqual([]);
  });

  it.each([
    ['its secret was replaced', machine('a-new-secret-of-enough-bits-too')],
    ['it was moved to another realm', machine(SECRET, { realm: 'elsewhere' })],
    ['it became a person’s account', { ...machine(), machine: false }],
  ])('is refused a change when, in flight, %s', async (_, changed) => {
    users.beforeStrongRead = async () => {
      await users.put(changed);
    };
    const result = await auth.authenticate(request('PUT', basic()));
    expect(result).toMatchObject({ ok: false, reason: 'credential changed in flight' });
  });

  it('is refused a change when, in flight, the account was deleted', async () => {
    users.beforeStrongRead = async () => {
      await users.delete('robot');
    };
    expect(await auth.authenticate(request('DELETE', basic()))).toMatchObject({ ok: false });
  });

  it('is refused from a locked source even with the right secret, in either scheme', async () => {
    for (let failure = 0; failure < 5; failure += 1) await auth.authenticate(request('GET', basic('wrong')));
    expect(await auth.authenticate(request('GET', basic()))).toMatchObject({ ok: false, reason: 'account locked' });

    const nonce = /nonce="([^"]+)"/.exec(auth.challenge())?.[1] as string;
    const ha1 = md5(`robot:${REALM}:${SECRET}`);
    const response = md5(`${ha1}:${nonce}:${md5('GET:/api/books')}`);
    const digest = `Digest username="robot", realm="${REALM}", nonce="${nonce}", uri="/api/books", response="${response}"`;
    expect(await auth.authenticate(request('GET', digest))).toMatchObject({ ok: false, reason: 'account locked' });
  });
});
