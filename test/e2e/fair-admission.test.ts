import { randomInt } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { digestResponse, ha1, hash } from '../../shared/auth/digest';
import { createTestTables } from '../support/dynamodb';
import { type ServerProcess, startServerProcess } from '../support/server-process';

/**
 * The guessing limit is fair whatever order a burst arrives in: bursts of BURST concurrent guesses,
 * each from a fresh loopback address (Linux routes all of 127/8 to the host), the right password at
 * a random place, spread over two `npm start` processes (two containers) on one DynamoDB. A run
 * admits LOCKOUT_AFTER passwords per address, so the right one may get in about LOCKOUT_AFTER / BURST
 * of the time; the bound allows (LOCKOUT_AFTER + 1) / BURST plus three binomial standard deviations
 * (a fair limit passes it but about once in a thousand runs).
 * The hourly ceiling is raised out of the way: only the per-address run is under test.
 */
const SERVERS = 2;
const BURSTS = 150;
const BURST = 32;
const LOCKOUT_AFTER = 5;
const USER = 'fair';
const PASSWORD = 'fair-right-password';
const REALM = 'books';

const rate = (LOCKOUT_AFTER + 1) / BURST;
const BOUND = Math.floor(BURSTS * rate + 3 * Math.sqrt(BURSTS * rate * (1 - rate)));

let servers: ServerProcess[] = [];

beforeAll(async () => {
  const tables = await createTestTables();
  const env = {
    LOCAL_USERS: `${USER}:${PASSWORD}`,
    AUTH_LOCKOUT_AFTER: String(LOCKOUT_AFTER),
    AUTH_FAILURE_LIMIT: '10000000',
  };
  servers = await Promise.all(
    Array.from({ length: SERVERS }, () => startServerProcess(inject('dynamoEndpoint'), tables.names, [], env)),
  );
}, 120_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

/** The status and WWW-Authenticate of one request to server `i % SERVERS`, sent from `localAddress`. */
const send = (i: number, localAddress: string, authorization?: string) =>
  new Promise<{ status: number; challenge: string }>((resolve, reject) => {
    const server = servers[i % SERVERS] as ServerProcess;
    const headers = authorization === undefined ? {} : { authorization };
    // A connection per request: a pooled one the server closed after its keep-alive timeout, while a
    // slow burst ran, would be reused and reset (ECONNRESET), which says nothing about the limit.
    const sent = request(`${server.baseUrl}/api/books?limit=1`, { headers, localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, challenge: String(response.headers['www-authenticate']) }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });

const basic = (password: string) => `Basic ${Buffer.from(`${USER}:${password}`, 'utf8').toString('base64')}`;

/** A fresh nonce from a challenge (asked from an address the bursts never use: no database call). */
const freshNonce = async (i: number) => {
  const { challenge } = await send(i, '127.0.0.1');
  return /nonce="([^"]+)"/.exec(challenge)?.[1] as string;
};

const digest = (nonce: string, password: string) => {
  const uri = '/api/books?limit=1';
  const response = digestResponse({
    algorithm: 'MD5',
    ha1: ha1('MD5', USER, REALM, password),
    method: 'GET',
    uri,
    nonce,
    qop: { qop: 'auth', nc: '00000001', cnonce: hash('MD5', nonce).slice(0, 16) },
  });
  return `Digest username="${USER}", realm="${REALM}", nonce="${nonce}", uri="${uri}", algorithm=MD5, qop=auth, nc=00000001, cnonce="${hash('MD5', nonce).slice(0, 16)}", response="${response}"`;
};

/** The loopback address of burst `b` of a scheme: a new source for every burst. */
const addressOf = (scheme: number, b: number) => `127.${10 + scheme}.${Math.floor(b / 250)}.${(b % 250) + 2}`;

/** Runs the bursts; the number of them whose right password got in. */
const acceptedBursts = async (scheme: number, authorization: (password: string, i: number) => Promise<string>) => {
  // The right password alone, from a fresh address, gets in: a refusal below is the limit's.
  expect((await send(0, addressOf(scheme, BURSTS), await authorization(PASSWORD, 0))).status).toBe(200);
  let accepted = 0;
  for (let b = 0; b < BURSTS; b++) {
    const right = randomInt(BURST);
    const headers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => authorization(i === right ? PASSWORD : `wrong-guess-${b}-${i}`, i)),
    );
    const address = addressOf(scheme, b);
    const statuses = await Promise.all(headers.map((header, i) => send(i + b, address, header)));
    const ok = statuses.filter(({ status }) => status === 200).length;
    expect(statuses.every(({ status }) => status === 200 || status === 401)).toBe(true);
    expect(ok).toBeLessThanOrEqual(1);
    accepted += ok;
  }
  return accepted;
};

describe(`${BURSTS} bursts of ${BURST} guesses from one fresh address each, over ${SERVERS} processes`, () => {
  it(`Basic: the right password gets in at most ${BOUND} times (about ${LOCKOUT_AFTER}/${BURST} of the bursts)`, async () => {
    const accepted = await acceptedBursts(0, async (password) => basic(password));
    console.info(`Basic: right password let in ${accepted} of ${BURSTS} bursts (bound ${BOUND})`);
    expect(accepted).toBeLessThanOrEqual(BOUND);
  }, 600_000);

  it(`Digest: the right answer gets in at most ${BOUND} times (about ${LOCKOUT_AFTER}/${BURST} of the bursts)`, async () => {
    const accepted = await acceptedBursts(1, async (password, i) => digest(await freshNonce(i), password));
    console.info(`Digest: right answer let in ${accepted} of ${BURSTS} bursts (bound ${BOUND})`);
    expect(accepted).toBeLessThanOrEqual(BOUND);
  }, 600_000);
});
