import { describe, expect, it } from 'vitest';
import { ResultTooLargeError } from '../../shared/http/errors';
import {
  bytesInProxyResult,
  jsonArrayBody,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  MAX_RESPONSE_BODY_BYTES,
} from '../../shared/http/json-array';
import { okJsonText } from '../../shared/http/responses';

async function* items<T>(values: T[], consumed: { count: number }) {
  for (const value of values) {
    consumed.count++;
    yield value;
  }
}

/** What Lambda measures: the proxy result as it serialises it. */
const serializedResult = (body: string) => Buffer.byteLength(JSON.stringify(okJsonText(body)), 'utf8');

describe('jsonArrayBody', () => {
  it('serialises the items as one JSON array, empty included', async () => {
    const books = [
      { id: 1, title: 'A "quoted" title' },
      { id: 2, title: 'Ünïcode' },
    ];
    expect(JSON.parse(await jsonArrayBody(items(books, { count: 0 }), 10_000))).toEqual(books);
    expect(await jsonArrayBody(items([], { count: 0 }), 10_000)).toBe('[]');
  });

  it('stops consuming as soon as the body would pass the limit, and throws rather than truncate', async () => {
    const consumed = { count: 0 };
    const many = Array.from({ length: 1_000 }, (_, id) => ({ id, title: 'x'.repeat(80) }));
    await expect(jsonArrayBody(items(many, consumed), 1_000)).rejects.toBeInstanceOf(ResultTooLargeError);
    expect(consumed.count).toBeLessThan(20); // ~100 bytes each: it stopped right after the limit
  });

  it('counts a body as Lambda does, escapes included, so a body within the limit really fits in 6 MB', async () => {
    // Quotes and backslashes double inside the proxy result: a naive byte count would pass this body.
    const escapeHeavy = { title: '"\\'.repeat(1_000), author: 'é'.repeat(500) };
    const perItem = bytesInProxyResult(JSON.stringify(escapeHeavy)) + 1;
    const fits = Math.floor((MAX_RESPONSE_BODY_BYTES - 2) / perItem);

    const body = await jsonArrayBody(items(Array(fits).fill(escapeHeavy), { count: 0 }));
    expect(serializedResult(body) - Buffer.byteLength(body)).toBeGreaterThan(2_000_000); // escaping adds megabytes
    expect(serializedResult(body)).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT_BYTES);

    await expect(jsonArrayBody(items(Array(fits + 1).fill(escapeHeavy), { count: 0 }))).rejects.toBeInstanceOf(
      ResultTooLargeError,
    );
  });

  it('counts each byte once: the brackets, the commas between items, nothing more', async () => {
    expect(await jsonArrayBody(items([1, 2, 3], { count: 0 }), 7)).toBe('[1,2,3]');
    await expect(jsonArrayBody(items([1, 2, 3], { count: 0 }), 6)).rejects.toBeInstanceOf(ResultTooLargeError);
    expect(await jsonArrayBody(items([1], { count: 0 }), 3)).toBe('[1]');
  });

  it('measures text as the proxy result carries it: escapes double, UTF-8 bytes, no surrounding quotes', () => {
    expect(bytesInProxyResult('a"b\\é')).toBe(1 + 2 + 1 + 2 + 2);
    expect(bytesInProxyResult('')).toBe(0);
  });

  it('leaves room for the status and headers: a body at the limit fits in Lambda’s response with a long Link', () => {
    const result = {
      statusCode: 200,
      headers: {
        'Content-Type': 'application/json',
        Link: `<https://${'h'.repeat(2_000)}/api/books?cursor=x>; rel="next"`,
      },
      body: 'x'.repeat(MAX_RESPONSE_BODY_BYTES),
    };
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT_BYTES);
    expect(LAMBDA_RESPONSE_LIMIT_BYTES - MAX_RESPONSE_BODY_BYTES).toBeLessThanOrEqual(16 * 1024); // and wastes little
  });

  it('names the way out in its message: limit and the Link header', () => {
    expect(new ResultTooLargeError().message).toMatch(/limit=.*Link rel="next"/);
    expect(new ResultTooLargeError().statusCode).toBe(422);
  });
});
