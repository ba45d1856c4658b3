import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CapacityModel } from '../../bench/capacity-model';
import { type DynamoMeter, type MeteredCall, startDynamoMeter } from '../../bench/dynamodb-meter';
import { BOOKS_TABLE } from '../../shared/store/tables';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * The scale-out as a user of `npm start` can check it: the local server's handlers talk to DynamoDB
 * Local through the bench's metering proxy, which sees every call on the wire. 64 concurrent creates
 * over HTTP must spread the books over partition keys and write no single item (a counter, say) on
 * every create; both ways of listing must still return every book in ascending id order.
 */
const CREATES = 64;

let meter: DynamoMeter;
let api: Awaited<ReturnType<typeof startLocalApi>>;
let created: number[];
let booksTableCalls: MeteredCall[];

const get = (path: string) => fetch(new URL(path, api.baseUrl), { headers: { authorization: BASIC_DEMO } });
const nextLink = (response: Response) => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

beforeAll(async () => {
  meter = await startDynamoMeter(inject('dynamoEndpoint'));
  api = await startLocalApi({ env: { DYNAMODB_ENDPOINT: meter.endpoint } });
  meter.take();
  const responses = await Promise.all(
    Array.from({ length: CREATES }, (_, i) =>
      fetch(`${api.baseUrl}/api/books`, {
        method: 'POST',
        headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Spread ${i}`, author: 'Scale', isbn: `scale-${i}`, publicationYear: 1999 }),
      }),
    ),
  );
  expect(responses.map((response) => response.status)).toStrictEqual(Array(CREATES).fill(201));
  created = await Promise.all(responses.map(async (response) => ((await response.json()) as { id: number }).id));
  booksTableCalls = meter.take().filter((call) => JSON.stringify(call.request).includes(api.tables.names.books));
}, 60_000);
afterAll(async () => {
  await api?.close();
  await meter?.close();
});

describe(`${CREATES} concurrent creates behind the local server, metered on the wire`, () => {
  it('write no single item more than 6 times in all', () => {
    const model = new CapacityModel(BOOKS_TABLE);
    const writesPerItem = new Map<string, number>();
    for (const touch of booksTableCalls.flatMap((call) => model.touchesOf(call))) {
      if (touch.item) writesPerItem.set(touch.item, (writesPerItem.get(touch.item) ?? 0) + 1);
    }
    // every book and every ISBN claim written once; the id block item once per container
    expect(writesPerItem.size).toBe(2 * CREATES + 1);
    expect(Math.max(...writesPerItem.values())).toBeLessThanOrEqual(6);
  });

  it('put no partition key above 1/8 of the books', () => {
    const model = new CapacityModel(BOOKS_TABLE);
    const booksPerKey = new Map<string, number>();
    for (const touch of booksTableCalls.flatMap((call) => model.touchesOf(call))) {
      if (touch.item?.startsWith('pk=BOOK#')) {
        booksPerKey.set(touch.partition, (booksPerKey.get(touch.partition) ?? 0) + 1);
      }
    }
    expect([...booksPerKey.values()].reduce((sum, n) => sum + n, 0)).toBe(CREATES);
    expect(Math.max(...booksPerKey.values())).toBeLessThanOrEqual(CREATES / 8);
  });

  it('are all in the unfiltered list, in ascending id order', async () => {
    const response = await get('/api/books');
    expect(response.status).toBe(200);
    const ids = ((await response.json()) as { id: number }[]).map((book) => book.id);
    expect(ids).toStrictEqual([...created].sort((a, b) => a - b));
  });

  it('are all in a limit=10 page walk, in ascending id order, each page full but the last', async () => {
    const pages: number[][] = [];
    for (let url: string | undefined = '/api/books?limit=10'; url; ) {
      const response = await get(url);
      expect(response.status).toBe(200);
      pages.push(((await response.json()) as { id: number }[]).map((book) => book.id));
      url = nextLink(response);
    }
    expect(pages.map((page) => page.length)).toStrictEqual([10, 10, 10, 10, 10, 10, 4]);
    expect(pages.flat()).toStrictEqual([...created].sort((a, b) => a - b));
  });
});
