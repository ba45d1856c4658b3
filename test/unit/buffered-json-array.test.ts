import { describe, expect, it } from 'vitest';
import {
  BUFFERED_LIST_BYTES,
  bufferedJsonArray,
  LAMBDA_BUFFERED_RESPONSE_BYTES,
} from '../../shared/http/buffered-json-array';
import { ListTooLargeError } from '../../shared/http/errors';

/** Items as a store hands them over, recording how many were taken and whether the source was closed. */
const source = <T>(values: T[]) => {
  const seen = { taken: 0, closed: false };
  async function* items() {
    try {
      for (const value of values) {
        seen.taken++;
        yield value;
      }
    } finally {
      seen.closed = true;
    }
  }
  return { items: items(), seen };
};

/** What the body takes inside the function's result, as Lambda's runtime writes it. */
const resultBytes = (body: string) => Buffer.byteLength(JSON.stringify({ body })) - '{"body":""}'.length;

describe('bufferedJsonArray', () => {
  it('answers 200 with the JSON array, escapes and non-ASCII included, empty included', async () => {
    const values = [{ id: 1, title: 'A "quoted" \\ title' }, { id: 2, title: 'Ünïcode' }, 3, null];
    const response = await bufferedJsonArray(source(values).items);
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(response.body)).toEqual(values);
    expect((await bufferedJsonArray(source([]).items)).body).toBe('[]');
  });

  it('keeps the body below Lambda’s 6 MB buffered limit, with room for the status and headers', () => {
    expect(LAMBDA_BUFFERED_RESPONSE_BYTES).toBe(6_291_456);
    expect(BUFFERED_LIST_BYTES).toBeLessThan(LAMBDA_BUFFERED_RESPONSE_BYTES);
    expect(LAMBDA_BUFFERED_RESPONSE_BYTES - BUFFERED_LIST_BYTES).toBeGreaterThanOrEqual(8 * 1024);
  });

  it('sends a list whose body takes exactly maxBytes in the result, and 422s one byte more', async () => {
    const values = [{ title: 'say "ä"' }, { title: 'back\\slash' }, { title: 'plain' }];
    const body = JSON.stringify(values);
    const exact = resultBytes(body);
    // Quotes, backslashes and two-byte characters make the result bigger than the body's length.
    expect(exact).toBeGreaterThan(body.length);
    expect((await bufferedJsonArray(source(values).items, { maxBytes: exact })).body).toBe(body);
    await expect(bufferedJsonArray(source(values).items, { maxBytes: exact - 1 })).rejects.toBeInstanceOf(
      ListTooLargeError,
    );
  });

  it('stops reading at the first item past the byte budget and closes the source', async () => {
    const values = Array.from({ length: 100 }, (_, id) => ({ id, title: 'x'.repeat(90) }));
    const { items, seen } = source(values);
    const perItem = resultBytes(JSON.stringify(values[0])) + 1;
    await expect(bufferedJsonArray(items, { maxBytes: perItem * 10 })).rejects.toBeInstanceOf(ListTooLargeError);
    expect(seen.taken).toBe(10);
    expect(seen.closed).toBe(true);
  });

  it('answers 422 past the operator’s item cap, reading one item more than it, and lists up to it', async () => {
    const values = [1, 2, 3, 4, 5];
    const over = source(values);
    await expect(bufferedJsonArray(over.items, { maxItems: 3 })).rejects.toBeInstanceOf(ListTooLargeError);
    expect(over.seen).toEqual({ taken: 4, closed: true });
    expect(JSON.parse((await bufferedJsonArray(source(values).items, { maxItems: 5 })).body)).toEqual(values);
  });

  it('passes a failure of the source on, for the error middleware to answer', async () => {
    async function* failing() {
      yield 1;
      throw new Error('DynamoDB went away');
    }
    await expect(bufferedJsonArray(failing())).rejects.toThrow('DynamoDB went away');
  });
});
