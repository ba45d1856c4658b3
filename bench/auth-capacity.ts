import { FUNCTION_MEMORY_MB } from '../infra/constructs/route-function';
import { userRecord } from '../ops/user-records';
import { Authenticator } from '../shared/auth/authenticator';
import { NonceCodec } from '../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../shared/auth/types';
import { DynamoNonceLedger } from '../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import { createDocumentClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { AUTH_TABLE } from '../shared/store/tables';
import { type Challenge, challengesOf, parseAuthParams, parseChallenges } from '../tools/http-auth/challenges';
import { answerDigest, basicAuthorization } from '../tools/http-auth/digest';
import {
  CapacityModel,
  type Ceiling,
  ceilingOf,
  NEW_TABLE_PARTITIONS,
  NEW_TABLE_RCU_PER_SECOND,
  NEW_TABLE_WCU_PER_SECOND,
  profileOf,
} from './capacity-model';
import { durationMs, dynamoCostPerMillion, lambdaCostPerMillion, PRICES } from './cost';
import type { DynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';

/**
 * The authorizer's share of every request (docs/security.md, "Machine credentials"), per credential
 * kind and per client behaviour: the calls one credential's successful requests make on the auth
 * table from one address, the rate at which they reach DynamoDB's limits on a new on-demand table
 * (linear partition budget, nonce keys hashed over its partitions beside the account item), and
 * what authentication adds to the REST API's own price.
 */
export type ClientBehaviour = 'basic' | 'nonce-reusing' | 'nextnonce' | 'one-shot';

export interface AuthCapacityRow {
  credential: 'person' | 'machine';
  client: ClientBehaviour;
  /** HTTP round trips (API Gateway requests) and authorizer invocations per successful request. */
  roundTrips: number;
  dynamoCalls: number;
  readUnits: number;
  writeUnits: number;
  ceiling: Ceiling;
  /** Authentication's price per million successful requests: API Gateway, authorizer Lambda, auth-table units. */
  pricePerMillion: number;
}

/** The partitions and table limit of a new on-demand auth table, as the ceilings assume them. */
const NEW_AUTH_TABLE = {
  partitions: NEW_TABLE_PARTITIONS,
  tableLimit: { wcu: NEW_TABLE_WCU_PER_SECOND, rcu: NEW_TABLE_RCU_PER_SECOND },
};

const REALM = 'books';
const ADDRESS = '198.51.100.7';
const URI = '/api/books';
const PASSWORD = 'a-long-enough-password-for-the-bench';

const request = (authorization: string): AuthRequest => ({
  method: 'GET',
  path: URI,
  query: {},
  sourceAddress: ADDRESS,
  authorization,
});

/** A client of one behaviour: the Authorization of its next request, and what it learns from an answer. */
interface Client {
  next(): string;
  /** Challenges (401 legs, one authorizer call each, no DynamoDB call) this behaviour sends per success. */
  challengeLegs: number;
  learn(result: AuthResult): void;
}

const digestClient = (authenticator: Authenticator, username: string, behaviour: ClientBehaviour): Client => {
  const offered = () => challengesOf(parseChallenges(authenticator.challenge()), 'digest')[0] as Challenge;
  let challenge = offered();
  let nc = 0;
  return {
    challengeLegs: behaviour === 'one-shot' ? 1 : 0,
    next: () => {
      if (behaviour === 'one-shot') [challenge, nc] = [offered(), 0];
      nc += 1;
      return answerDigest({ challenge, credentials: { username, password: PASSWORD }, method: 'GET', uri: URI, nc })
        .authorization;
    },
    learn: (result) => {
      const nextnonce = result.ok ? parseAuthParams(result.authenticationInfo).nextnonce : undefined;
      if (behaviour === 'nextnonce' && nextnonce) {
        challenge = { ...challenge, params: { ...challenge.params, nonce: nextnonce } };
        nc = 0;
      }
    },
  };
};

const CLIENTS: { scheme: 'Basic' | 'Digest'; behaviour: ClientBehaviour }[] = [
  { scheme: 'Basic', behaviour: 'basic' },
  { scheme: 'Digest', behaviour: 'nonce-reusing' },
  { scheme: 'Digest', behaviour: 'nextnonce' },
  { scheme: 'Digest', behaviour: 'one-shot' },
];

/** Authentication's price per million: each leg a gateway request and an authorizer call; the answer's calls and units. */
const priceOf = (legs: number, cpuMsPerCall: number, dynamoCalls: number, reads: number, writes: number) =>
  legs * PRICES.restApiPerMillion +
  (legs - 1) * lambdaCostPerMillion(durationMs(cpuMsPerCall, 0, FUNCTION_MEMORY_MB), FUNCTION_MEMORY_MB) +
  lambdaCostPerMillion(durationMs(cpuMsPerCall, dynamoCalls, FUNCTION_MEMORY_MB), FUNCTION_MEMORY_MB) +
  dynamoCostPerMillion(reads, writes);

/**
 * `authorizerCpuMs`: the authorizer's warm CPU time per call from the latency bench; without it,
 * the CPU time of this process per call (the meter's proxying included: an upper bound).
 */
export const measureAuthCapacity = async (
  meter: DynamoMeter,
  tableName: string,
  requests: number,
  authorizerCpuMs?: number,
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
  for (const credential of ['person', 'machine'] as const) {
    for (const { scheme, behaviour } of CLIENTS) {
      const username = `capacity-${credential}-${behaviour}`;
      await users.put({ ...userRecord(username, PASSWORD, REALM), ...(credential === 'machine' && { machine: true }) });
      const user =
        scheme === 'Basic'
          ? { next: () => basicAuthorization({ username, password: PASSWORD }), challengeLegs: 0, learn: () => {} }
          : digestClient(authenticator, username, behaviour);
      const send = async () => {
        const result = await authenticator.authenticate(request(user.next()));
        if (!result.ok) throw new Error(`the bench's ${credential} ${behaviour} request was refused: ${result.reason}`);
        user.learn(result);
      };
      await send(); // a first success signs the address in, as a client's first request does
      meter.take();
      const cpuBefore = process.cpuUsage();
      for (let i = 0; i < requests; i++) await send();
      const cpu = process.cpuUsage(cpuBefore);
      const calls = meter.take();
      const profile = profileOf(new CapacityModel(AUTH_TABLE), calls, requests);
      const units = [...profile.partitions.values()].reduce(
        (sum, load) => ({ rcu: sum.rcu + load.rcu, wcu: sum.wcu + load.wcu }),
        { rcu: 0, wcu: 0 },
      );
      const legs = 1 + user.challengeLegs;
      const cpuMs = authorizerCpuMs ?? (cpu.user + cpu.system) / 1000 / requests;
      rows.push({
        credential,
        client: behaviour,
        roundTrips: legs,
        dynamoCalls: profile.calls,
        readUnits: units.rcu,
        writeUnits: units.wcu,
        ceiling: ceilingOf(profile, NEW_AUTH_TABLE),
        pricePerMillion: priceOf(legs, cpuMs, profile.calls, units.rcu, units.wcu),
      });
    }
  }
  return rows;
};

const fixed = (value: number) => (Number.isFinite(value) ? Math.floor(value).toLocaleString('en-US') : 'unbounded');
const dollars = (value: number) => `$${value.toFixed(2)}`;
const CLIENT_NAMES: Record<ClientBehaviour, string> = {
  basic: 'Basic',
  'nonce-reusing': 'Digest, nonce reused with rising nc',
  nextnonce: 'Digest, nextnonce',
  'one-shot': 'Digest, a challenge per request',
};
const labelOf = (row: AuthCapacityRow) =>
  `${row.credential === 'person' ? "person's password" : 'machine credential'}, ${CLIENT_NAMES[row.client]}`;

/** Markdown for docs/benchmarks.md: calls and units per request, and the per-credential ceiling on a new table. */
export const renderAuthCapacity = (rows: AuthCapacityRow[]): string =>
  [
    `The authorizer's calls on the auth table per successful request of one credential from one address, and the rate at which they reach DynamoDB's limits on a new on-demand table: a partition's one budget shared linearly (write units / 1,000 + read units / 3,000 per second at most 1), failed conditional writes charged, nonce keys hashed over the ${NEW_AUTH_TABLE.partitions} partitions of its first ${NEW_AUTH_TABLE.tableLimit.wcu.toLocaleString('en-US')} write units a second, beside the account item.`,
    '',
    markdownTable(
      ['Credential, client', 'round trips', 'calls', 'read units', 'write units', 'req/s', 'Limited by'],
      rows.map((row) => [
        labelOf(row),
        String(row.roundTrips),
        row.dynamoCalls.toFixed(2),
        row.readUnits.toFixed(2),
        row.writeUnits.toFixed(2),
        fixed(row.ceiling.requestsPerSecond),
        row.ceiling.limitedBy.replace(/#[\w-]{20,}/, '#…'), // one credential's key or nonce: which one says nothing
      ]),
      ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
    ),
  ].join('\n');

/** Markdown for docs/benchmarks.md: authentication's price per million beside the REST API's own floor. */
export const renderAuthPrices = (rows: AuthCapacityRow[]): string =>
  [
    `What a million successful requests pay for authentication, us-east-1 on-demand: API Gateway $${PRICES.restApiPerMillion} per request (the floor; one more per 401 leg), the authorizer's Lambda at ${FUNCTION_MEMORY_MB} MB (its warm CPU time from the latency bench, or in a bench run of this table alone the CPU time of the bench process, an upper bound; plus the assumed wait per DynamoDB call) and its auth-table units; the route's own function and reads come on top, the same for every credential.`,
    '',
    markdownTable(
      ['Credential, client', 'round trips', 'per 1M', 'over the floor'],
      rows.map((row) => [
        labelOf(row),
        String(row.roundTrips),
        `**${dollars(row.pricePerMillion)}**`,
        `+${((row.pricePerMillion / PRICES.restApiPerMillion - 1) * 100).toFixed(0)} %`,
      ]),
      ['left', 'right', 'right', 'right'],
    ),
  ].join('\n');
