import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { MAX_AUTHORIZATION_LENGTH } from '../../shared/auth/authorization-header';
import { sourceTag } from '../../shared/auth/client-address';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
import { accountKey } from '../../shared/store/auth/account-items';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import {
  createPatientDocumentClient,
  createRecordingDocumentClient,
  createTestTables,
  type SentCommand,
} from '../support/dynamodb';
import { itemSize } from '../support/item-size';

/**
 * The failure limit on Dynoxide: every authenticator has its own client, as every function
 * container has, and they share the auth table. A clock is injected where time matters.
 */
const REALM = 'books';
const HOUR = 3_600_000;
const A_ADDRESS = '203.0.113.7';
/**
 * The largest item a name that is nobody's can have, in DynamoDB's bytes (docs/security.md, "What
 * it costs", adds them up): with one address's run, and with the eight a record remembers at most.
 * Numbers take a byte or two less when they have fewer significant digits.
 */
const NOBODY_ITEM_BYTES = { oneAddress: 296, eightAddresses: 485 };

let tables: Awaited<ReturnType<typeof createTestTables>>;
let users: DynamoUserStore;

const container = (
  lockout: LockoutPolicy = DEFAULT_LOCKOUT_POLICY,
  now?: () => number,
  client = createPatientDocumentClient(tables.endpoint),
) =>
  new Authenticator(
    new DynamoUserStore(client, tables.names.auth),
    new DynamoNonceLedger(client, tables.names.auth),
    new NonceCodec(Buffer.from('shared-key'), 300, undefined, tables.names.auth),
    { realm: REALM, algorithms: ['MD5', 'SHA-256'], lockout, ...(now && { now }) },
  );

/** A clock the test moves. */
const clock = (start = Date.UTC(2026, 10, 24, 4, 0, 0)) => {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
};

const basic = (user: string, password: string, sourceAddress?: string): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  ...(sourceAddress && { sourceAddress }),
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});
const outcome = (result: AuthResult) => (result.ok ? 'accepted' : result.reason);
const WRONG = 'wrong user or password';
const LOCKED = 'account locked';

let names = 0;
/** A fresh user with password "right". */
const newUser = async () => {
  const name = `user-${++names}`;
  await users.put(userRecord(name, 'right', REALM));
  return name;
};
const record = async (name: string) =>
  (
    await createPatientDocumentClient(tables.endpoint).send(
      new GetCommand({ TableName: tables.names.auth, Key: accountKey(name), ConsistentRead: true }),
    )
  ).Item;
/** The run of consecutive failures a name's item holds for requests without a client address. */
const failRun = (item: Record<string, unknown> | undefined) =>
  (item?.failRuns as Record<string, [number, number]> | undefined)?.[sourceTag(undefined)]?.[0] ?? 0;

beforeAll(async () => {
  tables = await createTestTables();
  users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
});

describe('containers guessing one account at once', () => {
  it('count each failure exactly once, and no more than the schedule lets through', async () => {
    const victim = await newUser();
    const containers = Array.from({ length: 8 }, () => container());
    const results = await Promise.all(
      containers.flatMap((auth) => Array.from({ length: 5 }, () => auth.authenticate(basic(victim, 'guess')))),
    );
    const outcomes = results.map(outcome);
    expect(outcomes.filter((o) => o === WRONG)).toHaveLength(DEFAULT_LOCKOUT_POLICY.lockoutAfter);
    expect(outcomes.filter((o) => o === LOCKED)).toHaveLength(40 - DEFAULT_LOCKOUT_POLICY.lockoutAfter);
    expect(await record(victim)).toMatchObject({ failVersion: 5 });
    expect(failRun(await record(victim))).toBe(5);
    expect(results.filter((r) => !r.ok && r.lockoutStarted)).toHaveLength(1);
    // Locked: the right password is refused too, by every container, with the same challenge form.
    for (const auth of containers.slice(0, 2)) {
      expect(outcome(await auth.authenticate(basic(victim, 'right')))).toBe(LOCKED);
    }
  });

  it('hold the hourly limit across containers when no lockout intervenes (a user letting themselves in between)', async () => {
    const victim = await newUser();
    const policy = { ...DEFAULT_LOCKOUT_POLICY, failureLimit: 30, lockoutAfter: 1_000 };
    const containers = Array.from({ length: 8 }, () => container(policy));
    const results = await Promise.all(
      containers.flatMap((auth) => Array.from({ length: 10 }, () => auth.authenticate(basic(victim, 'guess')))),
    );
    // Strangers get 24 of the 30 (the other 6 are kept for addresses that signed in): half of it at
    // once, the other half back over the hour.
    expect(results.map(outcome).filter((o) => o === WRONG)).toHaveLength(12);
    expect(await record(victim)).toMatchObject({ failVersion: 12 });
    expect(failRun(await record(victim))).toBe(12);
    expect(outcome(await container(policy).authenticate(basic(victim, 'right')))).toBe(LOCKED);
  });
});

describe('bursts on one DynamoDB table, many containers at once', () => {
  it('a burst of 100 right passwords from one address (a client in parallel) all get in: successes never conflict', async () => {
    const name = await newUser();
    const containers = Array.from({ length: 4 }, () => container());
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (containers[i % 4] as Authenticator).authenticate(basic(name, 'right', A_ADDRESS)),
      ),
    );
    expect(results.map(outcome)).toEqual(Array(100).fill('accepted'));
  });

  it('a locked address stays locked under a burst of 32 right passwords over four containers', async () => {
    const victim = await newUser();
    const containers = Array.from({ length: 4 }, () => container());
    for (let i = 0; i < 5; i++) await (containers[0] as Authenticator).authenticate(basic(victim, 'guess', A_ADDRESS));
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        (containers[i % 4] as Authenticator).authenticate(basic(victim, 'right', A_ADDRESS)),
      ),
    );
    expect(results.map(outcome)).toEqual(Array(32).fill(LOCKED));
  });
});

describe('the schedule (a clock moved by the test)', () => {
  it('locks after five failures for 60 s, doubling with each further failure, up to 15 minutes', async () => {
    const name = await newUser();
    const time = clock();
    const auth = container(DEFAULT_LOCKOUT_POLICY, time.now);
    for (let i = 0; i < 4; i++) expect(outcome(await auth.authenticate(basic(name, 'guess')))).toBe(WRONG);
    const fifth = await auth.authenticate(basic(name, 'guess'));
    expect(fifth).toMatchObject({ ok: false, reason: WRONG, lockoutStarted: true });

    const lockouts: number[] = [];
    for (const seconds of [60, 120, 240, 480, 900, 900]) {
      time.advance(seconds * 1000 - 1);
      expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe(LOCKED);
      time.advance(1);
      expect(outcome(await auth.authenticate(basic(name, 'guess')))).toBe(WRONG);
      lockouts.push(seconds);
    }
    expect(lockouts).toHaveLength(6);
    // Waiting out the last lockout lets the right password in, and the run ends: five more free guesses.
    time.advance(900_000);
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe('accepted');
    expect(failRun(await record(name))).toBe(0);
    for (let i = 0; i < 4; i++) expect(outcome(await auth.authenticate(basic(name, 'guess')))).toBe(WRONG);
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe('accepted');
  });

  it('forgets a run an hour after its lockout ended, without a success', async () => {
    const name = await newUser();
    const time = clock();
    const auth = container(DEFAULT_LOCKOUT_POLICY, time.now);
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(name, 'guess'));
    time.advance(60_000 + HOUR);
    // A sixth failure would lock for 120 s if the run were remembered; forgotten, it is the first of a new run.
    expect(outcome(await auth.authenticate(basic(name, 'guess')))).toBe(WRONG);
    expect(failRun(await record(name))).toBe(1);
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe('accepted');
  });

  it('lets failures expire from the hourly limit: never more than the limit in any rolling hour', async () => {
    const name = await newUser();
    const time = clock();
    const policy = { ...DEFAULT_LOCKOUT_POLICY, failureLimit: 10, lockoutAfter: 1_000 };
    const auth = container(policy, time.now);
    const counted: number[] = [];
    // One guess every 30 s for three hours.
    for (let t = 0; t < 3 * HOUR; t += 30_000) {
      if (outcome(await auth.authenticate(basic(name, 'guess'))) === WRONG) counted.push(time.now());
      time.advance(30_000);
    }
    for (const start of counted) {
      expect(counted.filter((at) => at >= start && at <= start + HOUR).length).toBeLessThanOrEqual(8);
    }
    // Strangers get 8 of the 10: four at once (the first four guesses), then one every 15 minutes.
    const first = counted[0] ?? Number.NaN;
    expect(counted.slice(0, 4).map((at) => at - first)).toEqual([0, 30_000, 60_000, 90_000]);
    expect(counted.slice(4).map((at) => (at - first) / 60_000)).toEqual(
      Array.from({ length: 11 }, (_, i) => 15 * (i + 1)),
    );
  }, 60_000);
});

describe('names that are nobody’s', () => {
  it('get the same answers and lockouts as a user, and a record that expires, never a user', async () => {
    const known = await newUser();
    const unknown = `nobody-${names}`;
    const answers = async (name: string) => {
      const auth = container();
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) seen.push(outcome(await auth.authenticate(basic(name, 'guess'))));
      seen.push(outcome(await auth.authenticate(basic(name, 'right'))));
      return seen;
    };
    const knownAnswers = await answers(known);
    expect(knownAnswers).toEqual([WRONG, WRONG, WRONG, WRONG, WRONG, LOCKED, LOCKED, LOCKED]);
    expect(await answers(unknown)).toEqual(knownAnswers);

    const failuresOnly = await record(unknown);
    expect(failuresOnly).toMatchObject({ expiresAt: expect.any(Number) });
    expect(failRun(failuresOnly)).toBe(5);
    expect(failuresOnly).not.toHaveProperty('ha1Sha256');
    expect(failuresOnly?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 60 * 60);
    expect(await record(known)).not.toHaveProperty('expiresAt'); // a user item never expires
    expect(await users.get(unknown)).toBeUndefined();
    expect((await users.list()).map((user) => user.username)).not.toContain(unknown);
  });

  it('too long for a key: each gets its own record, so one long name locking does not lock another', async () => {
    const auth = container();
    const long = (c: string) => c.repeat(2_100);
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(long('a'), 'guess'));
    expect(outcome(await auth.authenticate(basic(long('a'), 'guess')))).toBe(LOCKED);
    expect(outcome(await auth.authenticate(basic(long('b'), 'guess')))).toBe(WRONG);
  });

  it('a user added later under a locked name starts without the name’s failures', async () => {
    const name = `later-${++names}`;
    const auth = container();
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(name, 'guess'));
    await users.put(userRecord(name, 'right', REALM));
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe('accepted');
    expect(await record(name)).not.toHaveProperty('expiresAt');
  });
});

describe('client addresses (a run per address, the hourly ceiling over all of them)', () => {
  const A = '203.0.113.7';
  const B = '198.51.100.20';

  it('a user locked out from one address still gets in from another; the first stays locked', async () => {
    const name = await newUser();
    const auth = container();
    const fromA: string[] = [];
    for (let i = 0; i < 7; i++) fromA.push(outcome(await auth.authenticate(basic(name, 'guess', A))));
    expect(fromA).toEqual([WRONG, WRONG, WRONG, WRONG, WRONG, LOCKED, LOCKED]);
    expect(outcome(await auth.authenticate(basic(name, 'right', A)))).toBe(LOCKED);
    expect(outcome(await auth.authenticate(basic(name, 'right', B)))).toBe('accepted');
    // The success ends B's run only: A is still locked.
    expect(outcome(await auth.authenticate(basic(name, 'right', A)))).toBe(LOCKED);
  });

  it('the strangers’ ceiling locks the name from every new address, the right password included, never from one that signed in', async () => {
    const name = await newUser();
    const time = clock();
    const policy = { ...DEFAULT_LOCKOUT_POLICY, failureLimit: 20 }; // 16 for strangers: a bucket of 8
    const auth = container(policy, time.now);
    expect(outcome(await auth.authenticate(basic(name, 'right', A)))).toBe('accepted');
    // Two failures from each of four addresses: no address reaches its own lockout.
    for (let i = 0; i < 8; i++) {
      expect(outcome(await auth.authenticate(basic(name, 'guess', `192.0.2.${i % 4}`)))).toBe(WRONG);
    }
    expect(outcome(await auth.authenticate(basic(name, 'guess', '192.0.2.9')))).toBe(LOCKED);
    expect(outcome(await auth.authenticate(basic(name, 'right', B)))).toBe(LOCKED);
    // The user's own address signed in before: its failures draw on the other part (4 an hour).
    expect(outcome(await auth.authenticate(basic(name, 'right', A)))).toBe('accepted');
    expect(outcome(await auth.authenticate(basic(name, 'typo', A)))).toBe(WRONG);
    expect(outcome(await auth.authenticate(basic(name, 'right', A)))).toBe('accepted');
    // The strangers' bucket frees one failure after 3,600 s / 8.
    time.advance(450_000);
    expect(outcome(await auth.authenticate(basic(name, 'right', B)))).toBe('accepted');
  });

  it('addresses of one IPv6 /64 are one source; IPv4 mapped into IPv6 is the IPv4 address', async () => {
    const name = await newUser();
    const auth = container();
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(name, 'guess', `2001:db8:1:2::${i + 1}`));
    expect(outcome(await auth.authenticate(basic(name, 'right', '2001:db8:1:2:ffff::9')))).toBe(LOCKED);
    expect(outcome(await auth.authenticate(basic(name, 'right', '2001:db8:1:3::1')))).toBe('accepted');

    const other = await newUser();
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(other, 'guess', A));
    expect(outcome(await auth.authenticate(basic(other, 'right', `::ffff:${A}`)))).toBe(LOCKED);
  });

  it('remembers eight addresses: a ninth takes the place of the one whose lockout ends first', async () => {
    const name = await newUser();
    const time = clock();
    const auth = container({ ...DEFAULT_LOCKOUT_POLICY, failureLimit: 200 }, time.now); // room for 45 failures at once
    const address = (i: number) => `192.0.2.${100 + i}`;
    for (let i = 0; i < 8; i++) {
      for (let j = 0; j < 5; j++) await auth.authenticate(basic(name, 'guess', address(i)));
      time.advance(1_000); // the first address's lockout ends first
    }
    for (let j = 0; j < 5; j++) await auth.authenticate(basic(name, 'guess', address(8)));
    const runs = (await record(name))?.failRuns as Record<string, unknown>;
    expect(Object.keys(runs)).toHaveLength(8);
    expect(runs).not.toHaveProperty(sourceTag(address(0)));
    expect(runs).toHaveProperty(sourceTag(address(8)));
    expect(outcome(await auth.authenticate(basic(name, 'right', address(1))))).toBe(LOCKED);
  });
});

describe('the item a failure leaves under a name that is nobody’s', () => {
  /** The item as DynamoDB holds it (attribute values with their types) and its size. */
  const stored = async (name: string) => {
    const { Item } = await tables.client.send(
      new GetItemCommand({
        TableName: tables.names.auth,
        Key: { pk: { S: accountKey(name).pk } },
        ConsistentRead: true,
      }),
    );
    if (!Item) throw new Error(`no item for ${name.slice(0, 20)}`);
    return { item: Item, size: itemSize(Item), text: JSON.stringify(Item) };
  };

  it('is the same size for a 1-character name and the longest one Authorization can carry, and holds neither name', async () => {
    const time = clock();
    const auth = container(DEFAULT_LOCKOUT_POLICY, time.now);
    const short = 'q';
    // 3,064 bytes: with ":g" the Basic credentials are 4,094 characters, within MAX_AUTHORIZATION_LENGTH (4,096).
    const long = `ü${'Z'.repeat(3_060)}ß`;
    const longest = basic(long, 'g', A_ADDRESS);
    expect((longest.authorization as string).length).toBeGreaterThan(MAX_AUTHORIZATION_LENGTH - 4);
    expect(outcome(await auth.authenticate(basic(short, 'g', A_ADDRESS)))).toBe(WRONG);
    expect(outcome(await auth.authenticate(longest))).toBe(WRONG);
    const [one, many] = [await stored(short), await stored(long)];
    expect(one.size).toBe(many.size);
    expect(Object.keys(one.item).sort()).toEqual(Object.keys(many.item).sort());
    expect(many.text).not.toContain('ZZZZ');
    expect(many.text).not.toContain('ü');
    expect(Object.values(one.item).map((value) => value.S)).not.toContain(short);
    expect(one.size).toBeLessThanOrEqual(NOBODY_ITEM_BYTES.oneAddress);
    console.info(`a name that is nobody's, after one failure: ${one.size} bytes`);
  });

  it('grows with the addresses it remembers, to a fixed largest size', async () => {
    const time = clock();
    const auth = container({ ...DEFAULT_LOCKOUT_POLICY, failureLimit: 1_000 }, time.now);
    const name = `nobody-many-${++names}`;
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < 9; j++) await auth.authenticate(basic(name, 'guess', `198.51.100.${i}`));
      time.advance(900_000);
    }
    const { size } = await stored(name);
    expect(size).toBeLessThanOrEqual(NOBODY_ITEM_BYTES.eightAddresses);
    expect(Object.keys((await stored(name)).item.failRuns?.M ?? {})).toHaveLength(8);
    console.info(`a name that is nobody's, eight addresses remembered: ${size} bytes`);
  });
});

describe('unlocking', () => {
  it('lifts a lockout at once: the right password is let in again', async () => {
    const name = await newUser();
    const auth = container();
    for (let i = 0; i < 6; i++) await auth.authenticate(basic(name, 'guess'));
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe(LOCKED);
    expect((await users.listFailures()).find((listing) => listing.username === name)).toMatchObject({
      isUser: true,
      failures: { runs: { [sourceTag(undefined)]: { consecutive: 5 } } },
    });
    expect(await users.clearFailures(name)).toBe(true);
    expect(await users.clearFailures(name)).toBe(false);
    expect(outcome(await auth.authenticate(basic(name, 'right')))).toBe('accepted');
    expect(await record(name)).toMatchObject({ username: name, ha1Sha256: expect.any(String) });
  });

  it('removes a record of a name that is nobody’s', async () => {
    const name = `nobody-unlocked-${++names}`;
    await container().authenticate(basic(name, 'guess'));
    const listed = (await users.listFailures()).find((listing) => listing.key === accountKey(name).pk);
    expect(listed).toMatchObject({ isUser: false });
    expect(listed).not.toHaveProperty('username');
    expect(await users.clearFailures(name)).toBe(true);
    expect(await record(name)).toBeUndefined();
  });
});

describe('what it costs in requests', () => {
  let sent: SentCommand[];
  let auth: Authenticator;
  const commands = async (request: AuthRequest) => {
    sent.length = 0;
    await auth.authenticate(request);
    return sent.map((command) => command.name);
  };
  beforeAll(() => {
    const recording = createRecordingDocumentClient(tables.endpoint);
    sent = recording.sent;
    auth = container(DEFAULT_LOCKOUT_POLICY, undefined, recording.client);
  });

  it('a success: one read and one conditional write that admits it (the price of a limit bursts cannot pass); a challenge: nothing', async () => {
    const name = await newUser();
    expect(await commands(basic(name, 'right'))).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(sent[0]?.input.ConsistentRead).toBeUndefined();
    expect(sent[1]?.input.ConditionExpression).toContain('attribute_not_exists(failRuns.#src)');
    expect(await commands(basic(name, 'right'))).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(await commands({ method: 'GET', path: '/api/books', query: {}, authorization: undefined })).toEqual([]);
  });

  it('a failure: one read and one conditional write; a success after failures: one write that also ends the run', async () => {
    const name = await newUser();
    expect(await commands(basic(name, 'guess'))).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(sent[1]?.input.ConditionExpression).toContain('attribute_not_exists(failRuns)');
    expect(await commands(basic(name, 'right'))).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(sent[1]?.input.UpdateExpression).toContain('REMOVE failRuns.#src');
    expect(await commands(basic(name, 'right'))).toEqual(['GetItemCommand', 'UpdateItemCommand']);
  });

  it('an attempt on a locked account: one read, no write', async () => {
    const name = await newUser();
    for (let i = 0; i < 5; i++) await auth.authenticate(basic(name, 'guess'));
    expect(await commands(basic(name, 'guess'))).toEqual(['GetItemCommand']);
    expect(await commands(basic(name, 'right'))).toEqual(['GetItemCommand']);
  });
});
