import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type AuthCapacityRow,
  type ClientBehaviour,
  measureAuthCapacity,
  renderAuthCapacity,
  renderAuthPrices,
} from '../../bench/auth-capacity';
import { CapacityModel, ceilingOf, type LoadProfile } from '../../bench/capacity-model';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { AUTH_TABLE } from '../../shared/store/tables';
import { createTestTables } from '../support/dynamodb';

/** Requests a second of a partition carrying these units per request, by the linear rule. */
const linear = (writeUnits: number, readUnits: number) => 1 / (writeUnits / 1_000 + readUnits / 3_000);

const profile = (partitions: Record<string, { wcu: number; rcu: number }>): LoadProfile => ({
  requests: 1,
  calls: 1,
  partitions: new Map(Object.entries(partitions)),
  items: new Map(),
});

describe('the capacity model’s partition budget', () => {
  it('is one budget that reads and writes share linearly, not two separate limits', () => {
    // Half the write budget and half the read budget: full, at 1,000 requests a second (separately: 2,000).
    expect(ceilingOf(profile({ hot: { wcu: 0.5, rcu: 1.5 } })).requestsPerSecond).toBeCloseTo(1_000);
  });

  it('puts a share of every other key on a hot key’s partition when the table has few partitions', () => {
    const load = profile({ account: { wcu: 1, rcu: 0 }, nonce: { wcu: 1, rcu: 0 } });
    expect(ceilingOf(load).requestsPerSecond).toBeCloseTo(1_000);
    expect(ceilingOf(load, { partitions: 4 }).requestsPerSecond).toBeCloseTo(800);
  });

  it('charges a write whose condition failed at least one unit, on its key', () => {
    const failed = {
      operation: 'UpdateItem',
      capacityUnits: 0,
      status: 400,
      request: { Key: { pk: { S: 'NONCE#n' } } },
      response: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException' },
    };
    expect(new CapacityModel(AUTH_TABLE).touchesOf(failed)).toStrictEqual([
      { partition: 'table pk=NONCE#n', item: 'pk=NONCE#n', wcu: 1, rcu: 0 },
    ]);
  });

  it('holds a request to a new table’s limit', () => {
    const wide = profile(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, { wcu: 1, rcu: 0 }])));
    expect(ceilingOf(wide, { tableLimit: { wcu: 4_000, rcu: 12_000 } }).requestsPerSecond).toBeCloseTo(500);
  });
});

const FIXED_AUTHORIZER_CPU_MS = 2;

/** The authorizer on Dynoxide, metered: per credential kind and client behaviour, what a success costs. */
describe("the authorizer's calls per request and the per-credential ceiling on a new table", () => {
  let meter: DynamoMeter;
  let rows: AuthCapacityRow[];
  const row = (credential: 'person' | 'machine', client: ClientBehaviour) =>
    rows.find((r) => r.credential === credential && r.client === client) as AuthCapacityRow;

  beforeAll(async () => {
    meter = await startDynamoMeter(inject('dynamoEndpoint'));
    const tables = await createTestTables();
    // A fixed CPU time per call: the prices compared below then differ by calls and units only, not by this machine's noise.
    rows = await measureAuthCapacity(meter, tables.names.auth, 32, FIXED_AUTHORIZER_CPU_MS);
    console.log(`${renderAuthCapacity(rows)}\n\n${renderAuthPrices(rows)}`);
  }, 120_000);
  afterAll(() => meter.close());

  it("a person's password: an eventually consistent read and a write of the account item, 857 a second", () => {
    const basic = row('person', 'basic');
    expect([basic.dynamoCalls, basic.readUnits, basic.writeUnits]).toStrictEqual([2, 0.5, 1]);
    expect(Math.floor(basic.ceiling.requestsPerSecond)).toBe(Math.floor(linear(1, 0.5)));
    expect(basic.ceiling.limitedBy).toMatch(/^reads and writes on table pk=ACCOUNT#/);
  });

  it('Digest adds one nonce write, a quarter of which lands on the account’s partition of a new table', () => {
    for (const client of ['nonce-reusing', 'nextnonce', 'one-shot'] as const) {
      const digest = row('person', client);
      expect([digest.dynamoCalls, digest.readUnits, digest.writeUnits], client).toStrictEqual([3, 0.5, 2]);
      expect(Math.floor(digest.ceiling.requestsPerSecond), client).toBe(Math.floor(linear(1 + 1 / 4, 0.5)));
    }
  });

  it('a machine credential: no account write; Digest held by the nonce writes beside its read', () => {
    const basic = row('machine', 'basic');
    expect([basic.dynamoCalls, basic.writeUnits, basic.ceiling.requestsPerSecond]).toStrictEqual([1, 0, 6_000]);
    expect(Math.floor(row('machine', 'nextnonce').ceiling.requestsPerSecond)).toBe(Math.floor(linear(1 / 4, 0.5)));
    // A reused nonce is one item written by every request: its own partition holds the client.
    expect(Math.floor(row('machine', 'nonce-reusing').ceiling.requestsPerSecond)).toBe(Math.floor(linear(1, 0.5 / 4)));
  });

  it('one round trip per request for every client but the one that asks for a challenge each time', () => {
    expect(rows.filter((r) => r.roundTrips !== 1).map((r) => `${r.credential} ${r.client}`)).toStrictEqual([
      'person one-shot',
      'machine one-shot',
    ]);
  });

  it('prices each above the REST API floor, a nonce-reusing client no dearer than a nextnonce one', () => {
    for (const r of rows) expect(r.pricePerMillion).toBeGreaterThan(3.5);
    const reusing = row('person', 'nonce-reusing').pricePerMillion;
    expect(reusing).toBeLessThan(row('person', 'nextnonce').pricePerMillion + 0.05);
    expect(row('person', 'one-shot').pricePerMillion - reusing).toBeGreaterThan(3.5);
    expect(renderAuthPrices(rows)).toMatch(/\| person's password, Basic +\| +1 \| +\*\*\$\d\.\d\d\*\* \| +\+\d+ % \|/);
    expect(renderAuthCapacity(rows)).toMatch(
      /\| machine credential, Basic +\| +1 \| +1\.00 \| +0\.50 \| +0\.00 \| +6,000 \|/,
    );
  });
});
