import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { GuessingLimit } from '../../shared/auth/guessing-limit';
import { DEFAULT_LOCKOUT_POLICY } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
import { accountKey } from '../../shared/store/auth/account-items';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createPatientDocumentClient, createRecordingDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * The paths of a right and a wrong password on Dynoxide: the same calls until the outcome is
 * admitted, so neither wins the account's next write sooner; and a user removed while a right
 * password is in flight is refused and leaves no item behind.
 */
const REALM = 'books';
const ADDRESS = '203.0.113.9';
let tables: Awaited<ReturnType<typeof createTestTables>>;

beforeAll(async () => {
  tables = await createTestTables();
});

const authenticatorOn = (store: DynamoUserStore) =>
  new Authenticator(
    store,
    new DynamoNonceLedger(createPatientDocumentClient(tables.endpoint), tables.names.auth),
    new NonceCodec(Buffer.from('shared-key'), 300, undefined, tables.names.auth),
    { realm: REALM, algorithms: ['MD5'] },
  );

const basic = (user: string, password: string): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  sourceAddress: ADDRESS,
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});

const item = async (name: string) =>
  (
    await tables.documentClient.send(
      new GetCommand({ TableName: tables.names.auth, Key: accountKey(name), ConsistentRead: true }),
    )
  ).Item;

/**
 * The calls one password's check makes when another container counts a failure from the same
 * address between its read and its first write (so that write loses and the check goes round again).
 */
const callsWhenRaced = async (name: string, password: string) => {
  const users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
  await users.put(userRecord(name, 'right-password-of-the-user', REALM));
  const other = authenticatorOn(users);
  const { client, sent } = createRecordingDocumentClient(tables.endpoint);
  const store = new DynamoUserStore(client, tables.names.auth);
  const admit = store.admit.bind(store);
  let raced = false;
  store.admit = async (...args) => {
    if (!raced) {
      raced = true;
      await other.authenticate(basic(name, 'another-wrong-password'));
    }
    return admit(...args);
  };
  const result: AuthResult = await authenticatorOn(store).authenticate(basic(name, password));
  return {
    ok: result.ok,
    calls: sent.map((call) => `${call.name}${call.input.ConsistentRead ? ' (consistent)' : ''}`),
  };
};

describe('a right and a wrong password', () => {
  it('make the same calls until their outcome is admitted, when their first write loses a race', async () => {
    const right = await callsWhenRaced('paths-right', 'right-password-of-the-user');
    const wrong = await callsWhenRaced('paths-wrong', 'a-wrong-password-here');
    expect(right.ok).toBe(true);
    expect(wrong.ok).toBe(false);
    expect(right.calls).toEqual([
      'GetItemCommand',
      'UpdateItemCommand',
      'GetItemCommand (consistent)',
      'UpdateItemCommand',
    ]);
    expect(wrong.calls).toEqual(right.calls);
  });
});

describe('a user removed while a right password is in flight', () => {
  it('is refused, and no item without credentials is left (none that never expires)', async () => {
    const users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
    const limit = new GuessingLimit(users, DEFAULT_LOCKOUT_POLICY);
    for (const [name, failuresFirst] of [
      ['removed-clean', false],
      ['removed-after-failures', true],
    ] as const) {
      await users.put(userRecord(name, 'right-password-of-the-user', REALM));
      if (failuresFirst) await authenticatorOn(users).authenticate(basic(name, 'a-wrong-password-here'));
      const { account } = await limit.lookup(name, ADDRESS);
      expect(account.user).toBeDefined();
      expect(await users.delete(name)).toBe(true);
      expect(await limit.succeeded(name, account, ADDRESS)).toBeUndefined();
      expect(await item(name)).toBeUndefined();
    }
  });

  it('is refused when the user was given another password meanwhile', async () => {
    const users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
    const limit = new GuessingLimit(users, DEFAULT_LOCKOUT_POLICY);
    await users.put(userRecord('changed', 'right-password-of-the-user', REALM));
    const { account } = await limit.lookup('changed', ADDRESS);
    await users.put(userRecord('changed', 'the-new-password-of-the-user', REALM));
    expect(await limit.succeeded('changed', account, ADDRESS)).toBeUndefined();
    expect((await item('changed'))?.signedIn).toBeUndefined();
  });
});
