import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { type Challenge, challengesOf, parseChallenges } from '../../tools/http-auth/challenges';
import { answerDigest } from '../../tools/http-auth/digest';
import { createTestTables } from '../support/dynamodb';
import { DEMO } from '../support/local-api';
import { type ServerProcess, startServerProcess } from '../support/server-process';

/**
 * A Digest client that keeps the nonce of its first challenge and counts its uses (RFC 7616 §3.4:
 * curl with several URLs, python-requests, digest-fetch), against `npm start`, its DynamoDB calls
 * counted on the wire (bench/dynamodb-meter.ts): one challenge, then one round trip per request.
 */
const PATH = '/api/books?limit=1';
let meter: DynamoMeter;
let server: ServerProcess;
let challenge: Challenge;
let authTable: string;

const send = (nc: number) =>
  fetch(new URL(PATH, server.baseUrl), {
    headers: {
      authorization: answerDigest({ challenge, credentials: DEMO, method: 'GET', uri: PATH, nc }).authorization,
    },
  });

beforeAll(async () => {
  meter = await startDynamoMeter(inject('dynamoEndpoint'));
  const { names } = await createTestTables();
  authTable = names.auth;
  server = await startServerProcess(meter.endpoint, names);
  const first = await fetch(new URL(PATH, server.baseUrl));
  expect(first.status).toBe(401);
  challenge = challengesOf(parseChallenges(first.headers.get('www-authenticate')), 'digest')[0] as Challenge;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await meter?.close();
});

describe('a Digest client that reuses its nonce with a rising nc', () => {
  it('sees one challenge and ten 2xx, the authorizer’s three DynamoDB calls each (account read, nonce use, sign-in)', async () => {
    meter.take();
    const statuses: number[] = [];
    const callsPerRequest: number[] = [];
    for (let nc = 1; nc <= 10; nc++) {
      statuses.push((await send(nc)).status);
      callsPerRequest.push(
        meter.take().filter((call) => JSON.stringify(call.request).includes(`"${authTable}"`)).length,
      );
    }
    expect(statuses).toStrictEqual(Array(10).fill(200));
    expect(callsPerRequest).toStrictEqual(Array(10).fill(3));
  });

  it('is refused, stale=true, for a (nonce, nc) pair used before and for a lower nc', async () => {
    for (const nc of [10, 4]) {
      const refused = await send(nc);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/stale=true/);
    }
  });
});
