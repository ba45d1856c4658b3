import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { createTestTables } from '../support/dynamodb';
import { BASIC_DEMO } from '../support/local-api';
import { booksTableCalls, createThrough, type ServerProcess, startServerProcess } from '../support/server-process';

/**
 * What a page of the unfiltered list costs, counted on the wire by a proxy in front of DynamoDB
 * Local (bench/dynamodb-meter.ts): at most two books-table calls a page of 20, one for most, over
 * books created by short-lived containers (each `npm start` process is one) and over a catalogue of
 * a few thousand created through the API.
 */
const PAGE = 20;
let meter: DynamoMeter;

beforeAll(async () => {
  meter = await startDynamoMeter(inject('dynamoEndpoint'));
});
afterAll(async () => {
  await meter?.close();
});

/** The lower median: of two pages, the cheaper. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;

/** Every page of 20, following the next links; the books-table calls of each page and the ids listed. */
const walkPages = async (server: ServerProcess, tables: Awaited<ReturnType<typeof createTestTables>>, filter = '') => {
  const callsPerPage: number[] = [];
  const ids: number[] = [];
  for (let url: string | undefined = `/api/books?limit=${PAGE}${filter}`; url; ) {
    meter.take();
    const response = await fetch(new URL(url, server.baseUrl), { headers: { authorization: BASIC_DEMO } });
    expect(response.status).toBe(200);
    ids.push(...((await response.json()) as { id: number }[]).map((book) => book.id));
    callsPerPage.push(booksTableCalls(meter.take(), tables.names).length);
    url = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return { callsPerPage, ids };
};

describe('a page of 20 of the unfiltered list', () => {
  it('costs one call (two at most) over books from twenty short-lived servers of two books each', async () => {
    const tables = await createTestTables();
    const created: number[] = [];
    for (let i = 0; i < 20; i++) {
      const server = await startServerProcess(meter.endpoint, tables.names);
      created.push(
        await createThrough(server.baseUrl, `short-${i}-a`),
        await createThrough(server.baseUrl, `short-${i}-b`),
      );
      await server.stop();
    }
    expect([...created].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 40 }, (_, i) => i + 1)); // dense
    const reader = await startServerProcess(meter.endpoint, tables.names);
    try {
      await fetch(`${reader.baseUrl}/api/books?limit=1`, { headers: { authorization: BASIC_DEMO } }); // warm
      const { callsPerPage, ids } = await walkPages(reader, tables);
      console.log(`short-lived servers: calls per page ${callsPerPage.join(', ')}`);
      expect(ids).toStrictEqual([...created].sort((a, b) => a - b));
      expect(Math.max(...callsPerPage)).toBeLessThanOrEqual(2);
      expect(median(callsPerPage)).toBe(1);
    } finally {
      await reader.stop();
    }
  }, 600_000);

  it('costs one call (two at most) over a catalogue of 2,000 books created through the API', async () => {
    const tables = await createTestTables();
    const server = await startServerProcess(meter.endpoint, tables.names);
    try {
      let next = 0;
      const worker = async () => {
        while (next < 2_000) await createThrough(server.baseUrl, `catalogue-${next++}`);
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const { callsPerPage, ids } = await walkPages(server, tables);
      const counts = new Map<number, number>();
      for (const calls of callsPerPage) counts.set(calls, (counts.get(calls) ?? 0) + 1);
      console.log(`2,000 books: ${callsPerPage.length} pages; pages by calls ${JSON.stringify([...counts])}`);
      expect(ids).toHaveLength(2_000);
      expect(ids).toStrictEqual([...ids].sort((a, b) => a - b));
      expect(Math.max(...callsPerPage)).toBeLessThanOrEqual(2);
      expect(median(callsPerPage)).toBe(1);

      // The whole list: one Query per id range it reads (each under 1 MB), and one read of the id-blocks item
      // (the bound that spares the list cap its count); where ids end, the last range says itself.
      meter.take();
      const whole = await fetch(`${server.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } });
      expect(((await whole.json()) as unknown[]).length).toBe(2_000);
      const calls = booksTableCalls(meter.take(), tables.names);
      const queried = new Set(
        calls
          .filter((call) => call.operation === 'Query')
          .map((call) =>
            JSON.stringify((call.request as { ExpressionAttributeValues?: unknown }).ExpressionAttributeValues),
          ),
      );
      console.log(`whole list of 2,000: ${calls.length} calls over ${queried.size} partitions`);
      expect(calls.length).toBeLessThanOrEqual(queried.size + 1);
    } finally {
      await server.stop();
    }
  }, 900_000);
});

describe('a page of 20 filtered by author, or by author and year', () => {
  const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra'];
  const YEARS = [1950, 1960, 1970, 1980];

  it('costs two calls at most, the last page included; by year alone, no more than before (one per year key)', async () => {
    const tables = await createTestTables();
    const server = await startServerProcess(meter.endpoint, tables.names);
    try {
      const created: { id: number; author: string; year: number }[] = [];
      let next = 0;
      const worker = async () => {
        while (next < 600) {
          const n = next++;
          const [author, year] = [AUTHORS[n % 3] as string, YEARS[Math.floor(n / 3) % 4] as number];
          const response = await fetch(`${server.baseUrl}/api/books`, {
            method: 'POST',
            headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `Filtered ${n}`, author, isbn: `filtered-${n}`, publicationYear: year }),
          });
          expect(response.status).toBe(201);
          created.push({ id: ((await response.json()) as { id: number }).id, author, year });
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const matching = (author?: string, year?: number) =>
        created
          .filter(
            (book) => (author === undefined || book.author === author) && (year === undefined || book.year === year),
          )
          .map((book) => book.id)
          .sort((a, b) => a - b);

      const byAuthor = await walkPages(server, tables, '&author=ada%20lovelace');
      const byAuthorAndYear = await walkPages(server, tables, '&author=GRACE%20HOPPER&year=1960');
      const byYear = await walkPages(server, tables, '&year=1970');
      console.log(
        `filtered pages' calls: by author ${byAuthor.callsPerPage.join(', ')}; by author and year ${byAuthorAndYear.callsPerPage.join(', ')}; by year ${byYear.callsPerPage.join(', ')}`,
      );
      expect(byAuthor.ids).toStrictEqual(matching('Ada Lovelace'));
      expect(byAuthorAndYear.ids).toStrictEqual(matching('Grace Hopper', 1960));
      expect(byYear.ids).toStrictEqual(matching(undefined, 1970));
      expect(byAuthor.callsPerPage.length).toBeGreaterThanOrEqual(10);
      // The list function's first request (its container's first) adds the one schema check.
      expect(byAuthor.callsPerPage[0]).toBe(3);
      expect(Math.max(...byAuthor.callsPerPage.slice(1), ...byAuthorAndYear.callsPerPage)).toBeLessThanOrEqual(2);
      // Sixteen year keys, each asked for its share of the page: one Query each, a few read on.
      expect(Math.min(...byYear.callsPerPage)).toBeGreaterThanOrEqual(16);
      expect(Math.max(...byYear.callsPerPage)).toBeLessThanOrEqual(32);
    } finally {
      await server.stop();
    }

    // A server that has read nothing reads the id-blocks item once, for the table's schemaVersion.
    const fresh = await startServerProcess(meter.endpoint, tables.names);
    try {
      const first = await walkPages(fresh, tables, '&author=edsger%20dijkstra&year=1980');
      const again = await walkPages(fresh, tables, '&author=edsger%20dijkstra&year=1980');
      expect(first.callsPerPage[0]).toBe(3);
      expect(again.callsPerPage.every((calls) => calls <= 2)).toBe(true);
    } finally {
      await fresh.stop();
    }
  }, 600_000);
});
