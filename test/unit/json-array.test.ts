import type { Readable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/log-capture';

// INFO and metrics on: the truncation must show in the log and as an EMF line.
Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' });
const { ListTooLargeError } = await import('../../shared/http/errors');
const { jsonArrayChunks, STREAM_CHUNK_BYTES } = await import('../../shared/http/json-array');
const { STREAMED_RESPONSE_MAX_BYTES } = await import('../../shared/http/lambda-limits');
const {
  ListGrewPastCapError,
  ResponseBudgetError,
  STOP_STREAMING_BEFORE_TIMEOUT_MS,
  StreamDeadlineError,
  streamedJsonArray,
  UNCOUNTED_HEAD_ITEMS,
} = await import('../../shared/http/streamed-json-array');

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

/** What a stream delivered before it ended, and the error it was destroyed with (none if it ended cleanly). */
const drain = async (stream: Readable): Promise<{ sent: string; error: Error | undefined }> => {
  let sent = '';
  try {
    for await (const chunk of stream) sent += String(chunk);
    return { sent, error: undefined };
  } catch (error) {
    return { sent, error: error as Error };
  }
};

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

  it('after the first byte, fails the body stream itself, logged and counted once, the array never closed', async () => {
    const response = await streamedJsonArray(items(books(2_000), { count: 0 }, 1_500), {
      route: 'ListBooks',
      remainingMs: FOREVER,
    });
    const { sent, error } = await drain(response.body as Readable);
    expect(error?.message).toBe('DynamoDB went away'); // the stream errors: the transfer fails
    expect(sent.startsWith('[{"id":1,')).toBe(true);
    expect(sent).not.toContain(']');
    const delivered = JSON.parse(`${sent}]`) as unknown[]; // cut after a whole book
    expect(delivered.length).toBeGreaterThan(1_400); // the chunk being gathered is lost, no more
    expect(delivered.length).toBeLessThan(1_500);
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
    const { sent, error } = await drain(stream);
    expect(error).toBeInstanceOf(StreamDeadlineError);
    expect(() => JSON.parse(String(first.value) + sent)).toThrow();
    expect(consumed.count).toBeLessThan(2_000);
    expect(JSON.stringify(logs.errors())).toContain('StreamDeadlineError');
  });

  it('stops a body that would pass its byte budget before the chunk that would pass it', async () => {
    const response = await streamedJsonArray(items(books(2_000)), {
      route: 'ListBooks',
      remainingMs: FOREVER,
      maxBytes: 100_000,
    });
    const { sent, error } = await drain(response.body as Readable);
    expect(error).toBeInstanceOf(ResponseBudgetError);
    expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(100_000);
    expect(Buffer.byteLength(sent)).toBeGreaterThan(100_000 - 2 * STREAM_CHUNK_BYTES);
    expect(JSON.stringify(logs.errors())).toContain('ResponseBudgetError');
  });

  it('by default, budgets Lambda’s 200 MB cap on a streamed response', () => {
    expect(STREAMED_RESPONSE_MAX_BYTES).toBe(200_000_000);
  });

  const cap = (maxItems: number, total: number, counted = { calls: 0 }) => ({
    maxItems,
    holdsMore: async () => {
      counted.calls++;
      return total > maxItems;
    },
  });

  it('with a small cap, answers the whole list up to it and ListTooLargeError past it, reading one item more, counting nothing', async () => {
    const counted = { calls: 0 };
    const atCap = await streamedJsonArray(items(books(5)), {
      route: 'ListBooks',
      cap: cap(5, 5, counted),
      remainingMs: FOREVER,
    });
    expect(JSON.parse(await text(atCap.body))).toEqual(books(5));
    const consumed = { count: 0 };
    await expect(
      streamedJsonArray(items(books(100), consumed), {
        route: 'ListBooks',
        cap: cap(5, 100, counted),
        remainingMs: FOREVER,
      }),
    ).rejects.toBeInstanceOf(ListTooLargeError);
    expect(consumed.count).toBe(6);
    expect(counted.calls).toBe(0);
  });

  it('refuses a list already known to be over the cap before reading an item or counting', async () => {
    const consumed = { count: 0 };
    const counted = { calls: 0 };
    await expect(
      streamedJsonArray(items(books(2 * UNCOUNTED_HEAD_ITEMS), consumed), {
        route: 'ListBooks',
        cap: { ...cap(UNCOUNTED_HEAD_ITEMS, 2 * UNCOUNTED_HEAD_ITEMS, counted), knownToHoldMore: async () => true },
        remainingMs: FOREVER,
      }),
    ).rejects.toBeInstanceOf(ListTooLargeError);
    expect(consumed.count).toBe(0);
    expect(counted.calls).toBe(0);
    // Not known: decided as before, by reading and counting; under a cap the head decides, never asked.
    const response = await streamedJsonArray(items(books(5)), {
      route: 'ListBooks',
      cap: { ...cap(UNCOUNTED_HEAD_ITEMS, 5, counted), knownToHoldMore: async () => false },
      remainingMs: FOREVER,
    });
    expect(JSON.parse(await text(response.body))).toEqual(books(5));
    const small = await streamedJsonArray(items(books(5)), {
      route: 'ListBooks',
      cap: {
        ...cap(5, 5, counted),
        knownToHoldMore: async () => {
          throw new Error('asked under a cap the head decides');
        },
      },
      remainingMs: FOREVER,
    });
    expect(JSON.parse(await text(small.body))).toEqual(books(5));
  });

  it('with a large cap, answers a list that ends within the first page without counting it', async () => {
    const counted = { calls: 0 };
    const response = await streamedJsonArray(items(books(UNCOUNTED_HEAD_ITEMS - 1)), {
      route: 'ListBooks',
      cap: cap(35_000, UNCOUNTED_HEAD_ITEMS - 1, counted),
      remainingMs: FOREVER,
    });
    expect(JSON.parse(await text(response.body))).toHaveLength(UNCOUNTED_HEAD_ITEMS - 1);
    expect(counted.calls).toBe(0);
  });

  it('with a large cap, counts a longer list before the first byte, holding no more than a page of it', async () => {
    const consumed = { count: 0 };
    const counted = { calls: 0 };
    await expect(
      streamedJsonArray(items(books(3_000), consumed), {
        route: 'ListBooks',
        cap: cap(2_500, 3_000, counted),
        remainingMs: FOREVER,
      }),
    ).rejects.toBeInstanceOf(ListTooLargeError);
    expect(counted.calls).toBe(1);
    expect(consumed.count).toBe(UNCOUNTED_HEAD_ITEMS); // read before the count, never the 2,501 the cap is
    const allowed = { count: 0 };
    const response = await streamedJsonArray(items(books(3_000), allowed), {
      route: 'ListBooks',
      cap: cap(3_000, 3_000, counted),
      remainingMs: FOREVER,
    });
    expect(allowed.count).toBeLessThan(3_000); // the status did not wait for the list
    expect(JSON.parse(await text(response.body))).toEqual(books(3_000));
  });

  it('fails the stream visibly when the list grew past the cap after it was counted', async () => {
    const response = await streamedJsonArray(items(books(3_000)), {
      route: 'ListBooks',
      cap: cap(2_000, 1_999), // counted a moment ago: 1,999; 3,000 by the time they are read
      remainingMs: FOREVER,
    });
    const { sent, error } = await drain(response.body as Readable);
    expect(error).toBeInstanceOf(ListGrewPastCapError);
    expect((JSON.parse(`${sent}]`) as unknown[]).length).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(logs.errors())).toContain('ListGrewPastCapError');
  });

  it('names the way out in the cap’s message: limit and the Link header', () => {
    expect(new ListTooLargeError().message).toMatch(/limit=.*Link rel="next"/);
    expect(new ListTooLargeError().statusCode).toBe(422);
    expect(new ListTooLargeError().name).toBe('ListTooLargeError');
  });
});
