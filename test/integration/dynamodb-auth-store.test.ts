import { createHash } from 'node:crypto';
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { NonceCodec } from '../../shared/auth/nonce';
import type { StoredUser } from '../../shared/auth/types';
import { accountKey } from '../../shared/store/auth/account-items';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoSecretStore } from '../../shared/store/auth/dynamodb-secret-store';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { StoreInvariantError } from '../../shared/store/errors';
import {
  createPatientDocumentClient,
  createRecordingDocumentClient,
  createTestTables,
  type SentCommand,
} from '../support/dynamodb';

/**
 * The auth table's stores on Dynoxide: users, spent nonces and secrets share one table and
 * one key attribute, told apart by their key's prefix. Commands are recorded where what the store
 * asks for matters (the key it looks up).
 */
let tables: Awaited<ReturnType<typeof createTestTables>>;
let client: ReturnType<typeof createPatientDocumentClient>;
let sent: SentCommand[];
const item = async (pk: string) =>
  (await client.send(new GetCommand({ TableName: tables.names.auth, Key: { pk } }))).Item;

beforeAll(async () => {
  tables = await createTestTables();
  ({ client, sent } = createRecordingDocumentClient(tables.endpoint));
});

const user = (username: string, realm = 'books'): StoredUser => ({
  username,
  realm,
  ha1: { MD5: `md5-of-${username}`, 'SHA-256': `sha256-of-${username}` },
});

/** A user as read back: a reader when stored without a role, under the credential version its put made. */
const readBack = (username: string, realm = 'books') => ({
  ...user(username, realm),
  role: 'reader',
  version: expect.stringMatching(/^[\w-]{16}$/),
});

describe('DynamoUserStore', () => {
  let users: DynamoUserStore;
  beforeAll(() => {
    users = new DynamoUserStore(client, tables.names.auth);
  });

  it('stores a user under ACCOUNT#<SHA-256 of the name> and reads back name, realm and both HA1 values', async () => {
    await users.put(user('alice'));
    expect(await users.get('alice')).toStrictEqual(readBack('alice'));
    const pk = `ACCOUNT#${createHash('sha256').update('alice').digest('base64url')}`;
    expect(await item(pk)).toStrictEqual({
      pk,
      username: 'alice',
      realm: 'books',
      ha1Md5: 'md5-of-alice',
      ha1Sha256: 'sha256-of-alice',
      credentialVersion: expect.stringMatching(/^[\w-]{16}$/),
    });
  });

  it('replaces a user put again under the same name, under a new credential version', async () => {
    await users.put(user('bob', 'old-realm'));
    const before = (await users.get('bob'))?.version;
    await users.put(user('bob', 'books'));
    expect(await users.get('bob')).toStrictEqual(readBack('bob', 'books'));
    expect((await users.get('bob'))?.version).not.toBe(before);
  });

  it('gives a new credential version with a new role', async () => {
    await users.put({ ...user('rolf'), role: 'admin' });
    const before = await users.get('rolf');
    expect(await users.setRole('rolf', 'reader')).toBe(true);
    const after = await users.get('rolf');
    expect(after?.role).toBe('reader');
    expect(after?.version).toMatch(/^[\w-]{16}$/);
    expect(after?.version).not.toBe(before?.version);
  });

  it('an unknown user is undefined', async () => {
    expect(await users.get('nobody')).toBeUndefined();
  });

  it('any name, of any length, is one lookup of its own fixed-length key', async () => {
    const longest = 'x'.repeat(3_000);
    await users.put(user(longest));
    expect(await users.get(longest)).toStrictEqual(readBack(longest));

    sent.length = 0;
    expect(await users.get(`${longest}y`)).toBeUndefined();
    expect(await users.get('é'.repeat(1100))).toBeUndefined();
    const keys = sent.map((command) => [command.name, command.input.Key?.pk]);
    expect(keys).toStrictEqual([
      ['GetItemCommand', expect.stringMatching(/^ACCOUNT#[\w-]{43}$/)],
      ['GetItemCommand', expect.stringMatching(/^ACCOUNT#[\w-]{43}$/)],
    ]);
    expect(keys[0]?.[1]).not.toBe(keys[1]?.[1]); // each name its own record, never one shared key
  });

  it('delete says whether there was a user to delete', async () => {
    await users.put(user('carol'));
    expect(await users.delete('carol')).toBe(true);
    expect(await users.get('carol')).toBeUndefined();
    expect(await users.delete('carol')).toBe(false);
  });

  it('lists the users only (no nonces or secrets), sorted by name', async () => {
    const own = await createTestTables();
    const ownClient = createPatientDocumentClient(own.endpoint);
    const listing = new DynamoUserStore(ownClient, own.names.auth);
    expect(await listing.list()).toStrictEqual([]);
    for (const name of ['mallory', 'Alice', 'bob', 'dave']) await listing.put(user(name));
    await new DynamoNonceLedger(ownClient, own.names.auth).use('n1', 1, 1_000);
    await new DynamoSecretStore(ownClient, own.names.auth).getOrCreate('key', () => 'secret');
    await ownClient.send(new PutCommand({ TableName: own.names.auth, Item: { pk: 'xUSER#eve', username: 'eve' } }));
    expect((await listing.list()).map((listed) => listed.username)).toStrictEqual(['Alice', 'bob', 'dave', 'mallory']);
    expect((await listing.list())[0]).toStrictEqual(readBack('Alice'));
  });

  it('admits a right password only under the credential version it was checked against', async () => {
    await users.put(user('carol'));
    const read = await users.account('carol');
    const success = (credentialVersion: string | undefined) => ({
      outcome: 'success' as const,
      source: 'test',
      seenRun: undefined,
      bucket: { field: 'bucketAt' as const, atMost: Number.MAX_SAFE_INTEGER },
      now: Date.now(),
      ha1Sha256: 'sha256-of-carol',
      credentialVersion,
      forget: [],
    });
    await users.setRole('carol', 'editor');
    expect(await users.admit('carol', read, success(read.user?.version))).toBe(false);
    const now = await users.account('carol');
    expect(await users.admit('carol', now, success(now.user?.version))).toBe(true);
  });

  it('lets in the right password of a user written before credential versions (an item with none)', async () => {
    const { username, realm, ha1 } = userRecord('legacy', 'pa:ss', 'books');
    await client.send(
      new PutCommand({
        TableName: tables.names.auth,
        Item: { ...accountKey(username), username, realm, ha1Md5: ha1.MD5, ha1Sha256: ha1['SHA-256'] },
      }),
    );
    const auth = new Authenticator(
      users,
      new DynamoNonceLedger(client, tables.names.auth),
      new NonceCodec(Buffer.from('s'), 300),
      {
        realm: 'books',
        algorithms: ['MD5'],
      },
    );
    const basic = `Basic ${Buffer.from('legacy:pa:ss').toString('base64')}`;
    expect(
      await auth.authenticate({ method: 'GET', path: '/api/books', query: {}, authorization: basic }),
    ).toMatchObject({
      ok: true,
      username: 'legacy',
    });
  });
});

describe('DynamoNonceLedger', () => {
  it('counts a nonce: true for each count above every count before, false for the same or a lower one', async () => {
    const ledger = new DynamoNonceLedger(client, tables.names.auth);
    expect(await ledger.use('abc', 1, 1_700_000_000)).toBe(true);
    expect(await ledger.use('abc', 1, 1_700_000_000)).toBe(false);
    expect(await ledger.use('abc', 2, 1_700_000_000)).toBe(true);
    expect(await ledger.use('abc', 7, 1_700_000_000)).toBe(true);
    expect(await ledger.use('abc', 5, 1_700_000_000)).toBe(false);
    expect(await ledger.use('abd', 0, 1_700_000_000)).toBe(true);
    expect(await ledger.use('abd', 0, 1_700_000_000)).toBe(false);
  });

  it('keeps a nonce spent that was recorded before nonces were counted (an item with no count)', async () => {
    await client.send(new PutCommand({ TableName: tables.names.auth, Item: { pk: 'NONCE#old', expiresAt: 1 } }));
    expect(await new DynamoNonceLedger(client, tables.names.auth).use('old', 2, 1_700_000_000)).toBe(false);
  });

  it('keeps a used nonce, with its highest count, a minute past its expiry before DynamoDB’s TTL may remove it', async () => {
    await new DynamoNonceLedger(client, tables.names.auth).use('ttl', 3, 1_700_000_000);
    expect(await item('NONCE#ttl')).toStrictEqual({ pk: 'NONCE#ttl', nc: 3, expiresAt: 1_700_000_060 });
  });

  it('the auth table lets DynamoDB’s TTL remove spent nonces by the attribute the ledger writes', async () => {
    const { TimeToLiveDescription } = await tables.client.send(
      new DescribeTimeToLiveCommand({ TableName: tables.names.auth }),
    );
    expect(TimeToLiveDescription).toMatchObject({ AttributeName: 'expiresAt', TimeToLiveStatus: 'ENABLED' });
  });

  it('passes on an error that is not a lost condition', async () => {
    const ledger = new DynamoNonceLedger(client, 'no-such-table');
    await expect(ledger.use('x', 1, 1)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('DynamoSecretStore', () => {
  it('keeps a secret under SECRET#<name>, read back strongly consistently', async () => {
    const secrets = new DynamoSecretStore(client, tables.names.auth);
    sent.length = 0;
    expect(await secrets.getOrCreate('nonce-key', () => 'v1')).toBe('v1');
    expect(await secrets.getOrCreate('nonce-key', () => 'v2')).toBe('v1');
    const reads = sent.filter((command) => command.name === 'GetItemCommand');
    expect(reads.map((command) => command.input)).toStrictEqual([
      { TableName: tables.names.auth, Key: { pk: 'SECRET#nonce-key' }, ConsistentRead: true },
      { TableName: tables.names.auth, Key: { pk: 'SECRET#nonce-key' }, ConsistentRead: true },
    ]);
    expect(await item('SECRET#nonce-key')).toStrictEqual({ pk: 'SECRET#nonce-key', value: 'v1' });
  });

  it('refuses a secret item that holds no string, rather than overwriting or returning it', async () => {
    await client.send(new PutCommand({ TableName: tables.names.auth, Item: { pk: 'SECRET#odd', value: 42 } }));
    const secrets = new DynamoSecretStore(client, tables.names.auth);
    const refused = await secrets.getOrCreate('odd', () => 'fresh').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreInvariantError);
    expect(refused).toMatchObject({
      message: 'Secret odd was created and removed at once',
      // The lost condition behind it stays on the error, as every translated store error keeps its cause.
      cause: expect.objectContaining({ name: 'ConditionalCheckFailedException' }),
    });
    expect(await item('SECRET#odd')).toStrictEqual({ pk: 'SECRET#odd', value: 42 });
  });

  it('passes on a failed write that is not a lost race', async () => {
    const secrets = new DynamoSecretStore(client, tables.names.auth);
    const tooLarge = 'x'.repeat(400 * 1024); // above DynamoDB's item size limit
    await expect(secrets.getOrCreate('huge', () => tooLarge)).rejects.toMatchObject({ name: 'ValidationException' });
    expect(await item('SECRET#huge')).toBeUndefined();
  });
});
