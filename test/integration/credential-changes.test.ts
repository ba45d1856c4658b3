import { beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../ops/password-rules';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { NonceCodec } from '../../shared/auth/nonce';
import type { Role } from '../../shared/auth/roles';
import type { Account, AuthRequest, AuthResult } from '../../shared/auth/types';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * Every credential bounded, and a change applying at once (docs/security.md, "Credential changes in
 * flight"), on Dynoxide: the authorizer's first read is answered late (as a stale, eventually
 * consistent read can be: DynamoDB may answer it from before a change) while the credential is
 * removed, given a new password or a lower role; the request is then refused or gets the new role.
 */
const REALM = 'books';
const ADDRESS = '203.0.113.44';
const PASSWORD = 'glad lamp river stone harbour';
let tables: Awaited<ReturnType<typeof createTestTables>>;
let users: DynamoUserStore;

beforeAll(async () => {
  tables = await createTestTables();
  users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
});

/**
 * The authorizer's store, whose eventually consistent read is answered late: it reads, then waits
 * until `meanwhile` (the change) has run before handing over what it read. Strongly consistent
 * reads and writes go through at once, as they would.
 */
class LateReadStore extends DynamoUserStore {
  constructor(private readonly meanwhile: () => Promise<unknown>) {
    super(createPatientDocumentClient(tables.endpoint), tables.names.auth);
  }
  override async account(username: string, latest = false): Promise<Account> {
    const read = await super.account(username, latest);
    if (!latest) await this.meanwhile();
    return read;
  }
}

const authenticatorOn = (store: DynamoUserStore) =>
  new Authenticator(
    store,
    new DynamoNonceLedger(createPatientDocumentClient(tables.endpoint), tables.names.auth),
    new NonceCodec(Buffer.from('shared-key'), 300, undefined, tables.names.auth),
    { realm: REALM, algorithms: ['MD5'] },
  );

const basic = (method: string, user: string, password: string): AuthRequest => ({
  method,
  path: '/api/books',
  query: {},
  sourceAddress: ADDRESS,
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});

/** What the authorizer answers to `method` with the right password when `change` runs during its read. */
const answerWhenChangedInFlight = async (
  method: string,
  name: string,
  password: string,
  change: () => Promise<unknown>,
) => authenticatorOn(new LateReadStore(change)).authenticate(basic(method, name, password));

const outcome = (result: AuthResult) => (result.ok ? `let in as ${result.role}` : 'refused');

const addPerson = (name: string, role: Role) => users.put({ ...userRecord(name, PASSWORD, REALM), role });
const addMachine = async (name: string, role: Role) => {
  const secret = generateSecret();
  await users.put({ ...userRecord(name, secret, REALM), role, machine: true });
  return secret;
};

describe('a credential changed while a request is in flight', () => {
  it('a machine credential removed: its create is refused', async () => {
    const secret = await addMachine('etl-removed', 'editor');
    const answer = await answerWhenChangedInFlight('POST', 'etl-removed', secret, () => users.delete('etl-removed'));
    expect(outcome(answer)).toBe('refused');
  });

  it('a machine credential given a new secret: the old one is refused', async () => {
    const secret = await addMachine('etl-renewed', 'editor');
    const answer = await answerWhenChangedInFlight('PATCH', 'etl-renewed', secret, () =>
      addMachine('etl-renewed', 'editor'),
    );
    expect(outcome(answer)).toBe('refused');
  });

  it('a machine credential lowered to reader: its create gets the reader’s answer', async () => {
    const secret = await addMachine('etl-lowered', 'editor');
    const answer = await answerWhenChangedInFlight('POST', 'etl-lowered', secret, () =>
      users.setRole('etl-lowered', 'reader'),
    );
    expect(outcome(answer)).toBe('let in as reader');
  });

  it('an admin demoted to reader: the delete gets the reader’s answer', async () => {
    await addPerson('ada-demoted', 'admin');
    const answer = await answerWhenChangedInFlight('DELETE', 'ada-demoted', PASSWORD, () =>
      users.setRole('ada-demoted', 'reader'),
    );
    expect(outcome(answer)).toBe('let in as reader');
  });

  it('a person removed, or given a new password: refused', async () => {
    await addPerson('bo-removed', 'editor');
    expect(
      outcome(await answerWhenChangedInFlight('POST', 'bo-removed', PASSWORD, () => users.delete('bo-removed'))),
    ).toBe('refused');
    await addPerson('bo-renewed', 'editor');
    const renew = () =>
      users.put({ ...userRecord('bo-renewed', 'another phrase of plain words', REALM), role: 'editor' });
    expect(outcome(await answerWhenChangedInFlight('POST', 'bo-renewed', PASSWORD, renew))).toBe('refused');
  });

  it('nothing changed: each is let in with its role (the late read alone refuses nothing)', async () => {
    const secret = await addMachine('etl-kept', 'editor');
    expect(outcome(await answerWhenChangedInFlight('POST', 'etl-kept', secret, async () => {}))).toBe(
      'let in as editor',
    );
    await addPerson('ada-kept', 'admin');
    expect(outcome(await answerWhenChangedInFlight('DELETE', 'ada-kept', PASSWORD, async () => {}))).toBe(
      'let in as admin',
    );
  });
});

describe('a machine credential from a locked source', () => {
  it('gets the locked answer for the right secret too, after wrong ones counted like wrong passwords', async () => {
    const secret = await addMachine('etl-guessed', 'editor');
    const auth = authenticatorOn(users);
    const reasons: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await auth.authenticate(basic('GET', 'etl-guessed', generateSecret()));
      reasons.push(answer.ok ? 'let in' : answer.reason);
    }
    // Five counted, then the source is locked: the sixth is no longer evaluated.
    expect(reasons).toEqual([...Array(5).fill('wrong user or password'), 'account locked']);
    const right = await auth.authenticate(basic('GET', 'etl-guessed', secret));
    const wrong = await auth.authenticate(basic('GET', 'etl-guessed', generateSecret()));
    expect(right.ok).toBe(false);
    expect(right.ok || right.reason).toBe('account locked');
    expect(wrong.ok || wrong.reason).toBe('account locked');
    // Another address is not locked by this one's failures: the right secret still gets in there.
    expect(
      (await auth.authenticate({ ...basic('GET', 'etl-guessed', secret), sourceAddress: '198.51.100.3' })).ok,
    ).toBe(true);
  });
});
