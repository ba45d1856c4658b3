import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../admin/user-records';
import { compareWrongPasswordTiming, describeComparison, medianInterval } from '../../bench/enumeration-timing';
import { Authenticator } from '../../shared/auth/authenticator';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AccountStore } from '../../shared/auth/ports';
import { DynamoNonceLedger, DynamoUserStore } from '../../shared/store/dynamodb-auth-store';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * Timing, on DynamoDB Local: a wrong password for a user against one for a name that is nobody's,
 * interleaved. The bound is wide enough for a shared two-core machine, and far below what a
 * difference in work costs here: the control adds 300 µs to one side and must be found.
 */
const PAIRS = Number(process.env.TIMING_PAIRS ?? 1_000);
/**
 * No difference larger than this, either way, in the 95 % interval of the median difference: the
 * evaluated path's noise is a DynamoDB Local write each time, the locked path's a read.
 */
const BOUND_US = { evaluated: 150, locked: 60 };
const CONTROL_DELAY_US = 300;

let tables: Awaited<ReturnType<typeof createTestTables>>;

const busyWait = (microseconds: number) => {
  const until = performance.now() + microseconds / 1000;
  while (performance.now() < until);
};

/** The store, optionally slower for one name (the control). */
const authenticator = (lockout: LockoutPolicy, slowFor?: string) => {
  const client = createPatientDocumentClient(tables.endpoint);
  const store = new DynamoUserStore(client, tables.names.auth);
  const accounts: AccountStore = slowFor
    ? {
        account: async (name: string, latest?: boolean) => {
          const account = await store.account(name, latest);
          if (name === slowFor) busyWait(CONTROL_DELAY_US);
          return account;
        },
        replaceFailures: (...args: Parameters<AccountStore['replaceFailures']>) => store.replaceFailures(...args),
      }
    : store;
  return new Authenticator(
    accounts,
    new DynamoNonceLedger(client, tables.names.auth),
    new NonceCodec(Buffer.from('k'), 300, undefined, tables.names.auth),
    { realm: 'books', algorithms: ['MD5', 'SHA-256'], lockout },
  );
};

beforeAll(async () => {
  tables = await createTestTables();
  const users = new DynamoUserStore(createPatientDocumentClient(tables.endpoint), tables.names.auth);
  for (const name of ['timed-user', 'locked-user', 'control-user']) await users.put(userRecord(name, 'right', 'books'));
});

describe('the interval of the median difference', () => {
  it('is the sign test’s order statistics around the median', () => {
    const differences = Array.from({ length: 100 }, (_, i) => i - 49.5);
    const { median, ci95 } = medianInterval(differences);
    expect(median).toBe(0);
    expect(ci95).toEqual([-9.5, 9.5]); // k = floor(50 - 9.8) = 40: the 41st smallest and the 41st largest
  });
});

describe('a wrong password takes as long for a user as for a name that is nobody’s', () => {
  it('while every password is evaluated (one read, one hash, one write each)', async () => {
    const everyTime = { ...DEFAULT_LOCKOUT_POLICY, lockoutAfter: 1_000_000, failureLimit: 1_000_000 };
    const result = await compareWrongPasswordTiming(authenticator(everyTime), 'timed-user', 'timed-nobody', {
      pairs: PAIRS,
    });
    console.info(describeComparison('evaluated', result));
    expect(result.ci95Us[0]).toBeGreaterThan(-BOUND_US.evaluated);
    expect(result.ci95Us[1]).toBeLessThan(BOUND_US.evaluated);
  }, 300_000);

  it('while both are locked (one read each, nothing evaluated)', async () => {
    const result = await compareWrongPasswordTiming(
      authenticator(DEFAULT_LOCKOUT_POLICY),
      'locked-user',
      'locked-nobody',
      {
        pairs: Math.min(PAIRS, 600),
        warmup: 50, // the first five of each lock the account
      },
    );
    console.info(describeComparison('locked', result));
    expect(result.ci95Us[0]).toBeGreaterThan(-BOUND_US.locked);
    expect(result.ci95Us[1]).toBeLessThan(BOUND_US.locked);
  }, 300_000);

  it('control: a difference of 300 µs in the work is found (the interval excludes 0 and covers about 300)', async () => {
    const everyTime = { ...DEFAULT_LOCKOUT_POLICY, lockoutAfter: 1_000_000, failureLimit: 1_000_000 };
    const result = await compareWrongPasswordTiming(
      authenticator(everyTime, 'control-user'),
      'control-user',
      'control-nobody',
      { pairs: Math.min(PAIRS, 300) },
    );
    console.info(describeComparison('control', result));
    expect(result.ci95Us[0]).toBeGreaterThan(CONTROL_DELAY_US - BOUND_US.evaluated);
    expect(result.ci95Us[1]).toBeLessThan(CONTROL_DELAY_US + BOUND_US.evaluated);
  }, 300_000);
});
