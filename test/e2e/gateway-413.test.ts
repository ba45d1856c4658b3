import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_HEADERS } from '../../shared/http/standard-headers';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * Three limits refuse a body, and npm start answers each as the deployed API does: the handler's
 * 64 KiB, Lambda's 6 MB invoke payload (the body base64-encoded in the event, so about 4.4 MB of
 * body), and API Gateway's 10 MB. Whichever refuses it, the client sees the same 413 body.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const post = (bytes: number) =>
  fetch(`${api.baseUrl}/api/books`, {
    method: 'POST',
    headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'x'.repeat(bytes), author: 'A', publicationYear: 2000, isbn: '1' }),
  });

describe('a body too large for the handler, for Lambda or for the gateway', () => {
  it.each([
    ['the handler’s limit', 100 * 1024],
    ['Lambda’s invoke payload', 7 * 1024 * 1024],
    ['API Gateway’s 10 MB', 11 * 1024 * 1024],
  ])('past %s gets the same 413', async (_, bytes) => {
    const response = await post(bytes);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      timestamp: expect.stringMatching(/Z$/),
      status: 413,
      message: 'Request body must be at most 65536 bytes',
    });
    for (const [name, value] of Object.entries(GATEWAY_HEADERS)) expect(response.headers.get(name)).toBe(value);
  });

  it('past Lambda’s invoke payload is refused before any function runs, even by a route that reads no body', async () => {
    const response = await fetch(`${api.baseUrl}/api/books/12345678`, {
      method: 'DELETE',
      headers: { authorization: BASIC_DEMO },
      body: 'x'.repeat(7 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { message: string }).message).toBe('Request body must be at most 65536 bytes');
  });
});
