import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type AuthCapacityRow,
  MACHINE_CREDENTIAL_GOAL,
  measureAuthCapacity,
  renderAuthCapacity,
} from '../../bench/auth-capacity';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { createTestTables } from '../support/dynamodb';

/** The authorizer in the capacity model: what one credential costs per request, and its ceiling. */
describe("the authorizer's calls per request and the per-credential ceiling", () => {
  let meter: DynamoMeter;
  let rows: AuthCapacityRow[];
  const row = (start: string) => rows.find((r) => r.scenario.startsWith(start)) as AuthCapacityRow;

  beforeAll(async () => {
    meter = await startDynamoMeter(inject('dynamoEndpoint'));
    const tables = await createTestTables();
    rows = await measureAuthCapacity(meter, tables.names.auth, 32);
  }, 120_000);
  afterAll(() => meter.close());

  it("a person's password: one read and one write of the account item, so about 1,000 requests a second", () => {
    const basic = row("Basic, one person's");
    expect(basic.ceiling.callsPerRequest).toBe(2);
    expect(basic.writeUnitsPerRequest).toBe(1);
    expect(basic.ceiling.requestsPerSecond).toBe(1_000);
    expect(basic.ceiling.limitedBy).toMatch(/^writes on (item )?(table )?pk=ACCOUNT#/);
    // Digest adds the nonce's write, on a key of its own.
    const digest = row("Digest, one person's");
    expect(digest.ceiling.callsPerRequest).toBe(3);
    expect(digest.writeUnitsPerRequest).toBe(2);
    expect(digest.ceiling.requestsPerSecond).toBe(1_000);
  });

  it(`a machine credential: no account write, at least ${MACHINE_CREDENTIAL_GOAL.toLocaleString('en-US')} requests a second`, () => {
    const basic = row('Basic, one machine');
    expect(basic.ceiling.callsPerRequest).toBe(1);
    expect(basic.writeUnitsPerRequest).toBe(0);
    expect(basic.ceiling.requestsPerSecond).toBeGreaterThanOrEqual(MACHINE_CREDENTIAL_GOAL);
    const digest = row('Digest, one machine');
    expect(digest.ceiling.callsPerRequest).toBe(2);
    expect(digest.writeUnitsPerRequest).toBe(1);
    expect(digest.ceiling.requestsPerSecond).toBeGreaterThanOrEqual(MACHINE_CREDENTIAL_GOAL);
  });

  it('renders calls and write units per request for Basic and Digest', () => {
    const table = renderAuthCapacity(rows);
    expect(table).toMatch(/\| Basic, one person's password +\| +2\.00 \| +1\.00 \| +1,000 \|/);
    expect(table).toMatch(/\| Digest, one machine credential \(users add --generate\) \| +2\.00 \| +1\.00 \|/);
  });
});
