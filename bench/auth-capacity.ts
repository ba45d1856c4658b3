import { userRecord } from '../admin/user-records';
import { Authenticator } from '../shared/auth/authenticator';
import { type DigestAlgorithm, digestResponse, ha1 } from '../shared/auth/digest';
import { NonceCodec } from '../shared/auth/nonce';
import type { AuthRequest } from '../shared/auth/types';
import { DynamoNonceLedger } from '../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import { createDocumentClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { AUTH_TABLE } from '../shared/store/tables';
import { CapacityModel, type Ceiling, ceilingOf, profileOf } from './capacity-model';
import type { DynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';

/**
 * The authorizer's share of every request (docs/security.md, "Machine credentials"): the calls one
 * credential's successful requests make on the auth table, from one address, and the rate at which
 * its account item (or any other key) reaches DynamoDB's per-partition limits. That rate is the
 * per-credential ceiling every scale figure of the books table stands beside.
 */
export interface AuthCapacityRow {
  scenario: string;
  ceiling: Ceiling;
  writeUnitsPerRequest: number;
}

/** What a machine credential must sustain on AWS's documented limits. */
export const MACHINE_CREDENTIAL_GOAL = 5_000;

const REALM = 'books';
const ADDRESS = '198.51.100.7';

const request = (authorization: string): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  sourceAddress: ADDRESS,
  authorization,
});

const basicHeader = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/** A Digest answer to the authenticator's own challenge (MD5, no qop: the spec's form). */
const digestHeader = (authenticator: Authenticator, username: string, password: string) => {
  const nonce = /nonce="([^"]+)"/.exec(authenticator.challenge())?.[1] as string;
  const algorithm: DigestAlgorithm = 'MD5';
  const uri = '/api/books';
  const response = digestResponse({
    algorithm,
    ha1: ha1(algorithm, username, REALM, password),
    method: 'GET',
    uri,
    nonce,
  });
  return `Digest username="${username}", realm="${REALM}", nonce="${nonce}", uri="${uri}", response="${response}"`;
};

export const measureAuthCapacity = async (
  meter: DynamoMeter,
  tableName: string,
  requests: number,
): Promise<AuthCapacityRow[]> => {
  const client = createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);
  const users = new DynamoUserStore(client, tableName);
  const authenticator = new Authenticator(
    users,
    new DynamoNonceLedger(client, tableName),
    new NonceCodec(Buffer.from('bench-nonce-key'), 300, undefined, tableName),
    { realm: REALM, algorithms: ['MD5'] },
  );
  const rows: AuthCapacityRow[] = [];
  for (const machine of [false, true]) {
    for (const scheme of ['Basic', 'Digest'] as const) {
      const username = `capacity-${scheme}-${machine ? 'machine' : 'person'}`;
      const password = 'a-long-enough-password-for-the-bench';
      await users.put({ ...userRecord(username, password, REALM), ...(machine && { machine: true }) });
      // A first success signs the address in, as a client's first request does.
      const header = () =>
        scheme === 'Basic' ? basicHeader(username, password) : digestHeader(authenticator, username, password);
      await authenticator.authenticate(request(header()));
      meter.take();
      for (let i = 0; i < requests; i++) {
        const result = await authenticator.authenticate(request(header()));
        if (!result.ok) throw new Error(`the bench's ${scheme} request was refused: ${result.reason}`);
      }
      const profile = profileOf(new CapacityModel(AUTH_TABLE), meter.take(), requests);
      const writeUnits = [...profile.partitions.values()].reduce((sum, load) => sum + load.wcu, 0);
      rows.push({
        scenario: `${scheme}, one ${machine ? 'machine credential (users add --generate)' : "person's password"}`,
        ceiling: ceilingOf(profile),
        writeUnitsPerRequest: writeUnits,
      });
    }
  }
  return rows;
};

const fixed = (value: number) => (Number.isFinite(value) ? Math.floor(value).toLocaleString('en-US') : 'unbounded');

/** Markdown for docs/benchmarks.md: calls and write units per request, and the per-credential ceiling. */
export const renderAuthCapacity = (rows: AuthCapacityRow[]): string =>
  [
    "The authorizer's calls on the auth table per successful request of one credential from one address, and the rate at which they reach DynamoDB's per-partition limits: that credential's ceiling, whatever the books table could take.",
    '',
    markdownTable(
      ['Credential', 'calls per request', 'write units per request', 'per-credential req/s', 'Limited by'],
      rows.map(({ scenario, ceiling, writeUnitsPerRequest }) => [
        scenario,
        ceiling.callsPerRequest.toFixed(2),
        writeUnitsPerRequest.toFixed(2),
        fixed(ceiling.requestsPerSecond),
        ceiling.limitedBy,
      ]),
      ['left', 'right', 'right', 'right', 'left'],
    ),
  ].join('\n');
