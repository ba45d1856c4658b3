import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStartError, parseLocalOptions } from '../../local/options';
import { demoClient } from '../support/demo-client';
import { startLocalApi } from '../support/local-api';

/** A CDN or proxy serving the API under its own origin: the links must name it, not the server reached. */
const PUBLIC_BASE_URL = 'https://books.example.com';

let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi({ env: { PUBLIC_BASE_URL } });
});
afterAll(() => api.close());

const { newBook, call } = demoClient(() => api.baseUrl, 'public-base', {
  title: 'T',
  author: 'A',
  publicationYear: 2001,
});

describe('PUBLIC_BASE_URL', () => {
  it("writes a created book's Location on it", async () => {
    const response = await call('POST', '/api/books', newBook());
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${PUBLIC_BASE_URL}/api/books/${response.json.id}`);
  });

  it('writes the links at / and /api on it, body and Link field alike', async () => {
    for (const path of ['/', '/api']) {
      const response = await fetch(`${api.baseUrl}${path}`);
      expect(response.status).toBe(200);
      const links = Object.values(((await response.json()) as { links: Record<string, string> }).links);
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(link.startsWith(`${PUBLIC_BASE_URL}/api/`), link).toBe(true);
      const targets = [...(response.headers.get('link') ?? '').matchAll(/<([^>]*)>/g)].map(([, url]) => url);
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) expect(target?.startsWith(`${PUBLIC_BASE_URL}/api/`), target).toBe(true);
    }
  });

  it('is refused at start when it is not an http(s) URL without query or fragment', () => {
    for (const value of [
      'books.example.com',
      'ftp://books.example.com',
      'https://books.example.com/?a=1',
      'https://u:p@x.example',
    ]) {
      expect(() => parseLocalOptions([], { PUBLIC_BASE_URL: value }), value).toThrow(LocalStartError);
      expect(() => parseLocalOptions([], { PUBLIC_BASE_URL: value }), value).toThrow(/PUBLIC_BASE_URL/);
    }
    const options = parseLocalOptions([], { PUBLIC_BASE_URL: 'https://example.com/library/' });
    expect(options?.functionEnvironment.PUBLIC_BASE_URL).toBe('https://example.com/library');
  });
});
