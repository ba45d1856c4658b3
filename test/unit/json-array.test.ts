import type { Readable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/log-capture';

// INFO and metrics on: the truncation must show in the log and as an EMF line.
Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' });
const { ListTooLargeError } = await import('../../shared/http/errors');
const { jsonArrayChunks, STREAM_CHUNK_BYTES } = await import('../../shared/http/json-array');
const { STOP_STREAMING_BEFORE_TIMEOUT_MS, streamedJsonArray } = await import('../../shared/http/streamed-json-array');

const logs = captureLogs();
beforeEach(() => logs.clear());
afterAll(() => logs.restore());

/** Items as a store hands them over, counting how many were taken; `failAt` throws instead of that item. */
async function* items<T>(values: T[], consumed = { count: 0 }, failAt = -1) {
  for (const [i, value] of values.entries()) {
    if (i === failAt) throw new Error('DynamoDB went away');
    consumed.count++;
    yield value;
  }
}

const collect = async <T>(source: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const value of source) out.push(value);
  return out;
};

const text = async (body: string | Readable) => (typeof body === 'string' ? body : (await collect(body)).join(''));

const FOREVER = () => 60_000;
const books = (count: number) => Array.from({ length: count }, (_, id) => ({ id: id + 1, title: 'x'.repeat(200) }));

describe('jsonArrayChunks', () => {
  it('writes the items as one JSON array, escapes included, empty included', async () => {
    const values = [{ id: 1, title: 'A "quoted" \\ title' }, { id: 2, title: 'Ünïcode' }, 3, null];
    expect(JSON.parse((await collect(jsonArrayChunks(items(values)))).join(''))).toEqual(values);
    expect((await collect(jsonArrayChunks(items([])))).join('')).toBe('[]');
  });

  it('hands the first item on at once, then chunks of about the chunk size, never one per item', async () => {
    const chunks = await collect(jsonArrayChunks(items(books(1_000)), 4_096));
    expect(chunks[0]).toBe(`[${JSON.stringify(books(1)[0])}`);
    const middle = chunks.slice(1, -1);
    expect(middle.length).toBeGreaterThan(40);
    expect(middle.length).toBeLessThan(100);
    for (const chunk of middle) {
      expect(chunk.length).toBeGreaterThanOrEqual(4_096);
      expect(chunk.length).toBeLessThan(4_096 + 300);
    }
    expect(STREAM_CHUNK_BYTES).toBe(32 * 1024);
  });

  it('reads the items only as fast as its chunks are taken', async () => {
    const consumed = { count: 0 };
    const chunks = jsonArrayChunks(items(books(1_000), consumed), 1_000);
    await chunks.next();
    await chunks.next();
    expect(consumed.count).toBeLessThan(10);
    await chunks.return();
  });

  it('passes a failure on without ever closing the array', async () => {
    const chunks: string[] = [];
    await expect(async () => {
      for await (const chunk of jsonArrayChunks(items(books(10), { count: 0 }, 5), 100)) chunks.push(chunk);
    }).rejects.toThrow('DynamoDB went away');
    expect(chunks.join('')).not.toContain(']');
  });
});

describe('streamedJsonArray', () => {
  it('answers an empty list whole, as JSON text with its status and type', async () => {
    const response = await streamedJsonArray(items([]), { route: 'ListBooks', remainingMs: FOREVER });
    expect(response).toEqual({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '[]' });
    const one = await streamedJsonArray(items([{ id: 1 }]), { route: 'ListBooks', remainingMs: FOREVER });
    expect(await text(one.body)).toBe('[{"id":1}]');
  });

  it('streams a longer list: status first, then the whole array from a stream', async () => {
    const consumed = { count: 0 };
    const response = await streamedJsonArray(items(books(2_000), consumed), {
      route: 'ListBooks',
      remainingMs: FOREVER,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(typeof response.body).not.toBe('string');
    expect(consumed.count).toBeLessThan(2_000); // the status did not wait for the last book
    expect(JSON.parse(await text(response.body))).toEqual(books(2_000));
    expect(logs.errors()).toEqual([]);
  });

  it('fails before the first book as an error the handler still answers with its status', async () => {
    await expect(
      streamedJsonArray(items(books(3), { count: 0 }, 0), { route: 'ListBooks', remainingMs: FOREVER }),
    ).rejects.toThrow('DynamoDB went away');
  });

  it('after the first byte, ends a failing list as an unfinished array, logged and counted once', async () => {
    const response = await streamedJsonArray(items(books(2_000), { count: 0 }, 1_500), {
      route: 'ListBooks',
      remainingMs: FOREVER,
    });
    const body = await text(response.body);
    expect(body.startsWith('[{"id":1,')).toBe(true);
    expect(() => JSON.parse(body)).toThrow();
    const sent = JSON.parse(`${body}]`) as unknown[]; // cut after a whole book, never closed
    expect(sent.length).toBeGreaterThan(1_400); // the chunk being gathered is lost, no more
    expect(sent.length).toBeLessThan(1_500);
    const errors = logs.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'Response stream cut short', route: 'ListBooks' });
    expect(JSON.stringify(errors[0])).toContain('DynamoDB went away');
    const metric = logs.lines.find((line) => '_aws' in line) as Record<string, unknown>;
    expect(metric).toMatchObject({ route: 'ListBooks', TruncatedResponses: 1 });
  });

  it('stops before the function’s deadline the same way, instead of being cut by the timeout', async () => {
    let remaining = 60_000;
    const consumed = { count: 0 };
    const response = await streamedJsonArray(items(books(2_000), consumed), {
      route: 'ListBooks',
      remainingMs: () => remaining,
    });
    const stream = response.body as Readable;
    const first = await stream[Symbol.asyncIterator]().next();
    remaining = STOP_STREAMING_BEFORE_TIMEOUT_MS - 1;
    const body = String(first.value) + (await text(stream));
    expect(() => JSON.parse(body)).toThrow();
    expect(consumed.count).toBeLessThan(2_000);
    expect(JSON.stringify(logs.errors())).toContain('StreamDeadlineError');
  });

  it('with a cap, answers the whole list up to the cap and ListTooLargeError past it, reading one book more', async () => {
    const atCap = await streamedJsonArray(items(books(5)), { route: 'ListBooks', maxItems: 5, remainingMs: FOREVER });
    expect(JSON.parse(await text(atCap.body))).toEqual(books(5));
    const consumed = { count: 0 };
    await expect(
      streamedJsonArray(items(books(100), consumed), { route: 'ListBooks', maxItems: 5, remainingMs: FOREVER }),
    ).rejects.toBeInstanceOf(ListTooLargeError);
    expect(consumed.count).toBe(6);
  });

  it('names the way out in the cap’s message: limit and the Link header', () => {
    expect(new ListTooLargeError().message).toMatch(/limit=.*Link rel="next"/);
    expect(new ListTooLargeError().statusCode).toBe(422);
    expect(new ListTooLargeError().name).toBe('ListTooLargeError');
  });
});
