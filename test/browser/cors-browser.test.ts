import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from '../clients/chromium/chromium';
import { DEMO, startLocalApi } from '../support/local-api';

/**
 * CORS in Chromium: a page served from another origin (another loopback port) calls the API with
 * fetch. Basic is sent by the page itself; for Digest the page reads the 401's exposed
 * `WWW-Authenticate`, the test computes the answer (browsers have no MD5 in Web Crypto, and their own
 * Digest support is only their login prompt), and the page sends it and reads `Authentication-Info`.
 * An origin that is not listed is refused by the browser.
 */
const servePage = () =>
  new Promise<{ server: Server; origin: string }>((done) => {
    const server = createServer((_, response) => {
      response.setHeader('Content-Type', 'text/html; charset=utf-8');
      response.end('<!doctype html><title>app</title>');
    });
    server.listen(0, '127.0.0.1', () => {
      done({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });

let app: Awaited<ReturnType<typeof servePage>>;
let stranger: Awaited<ReturnType<typeof servePage>>;
let api: Awaited<ReturnType<typeof startLocalApi>>;
let browser: Browser;
beforeAll(async () => {
  app = await servePage();
  stranger = await servePage();
  api = await startLocalApi({ env: { CORS_ALLOWED_ORIGINS: app.origin } });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  app?.server.close();
  stranger?.server.close();
});

// A browser, the local API and Dynoxide on a shared machine: each request may take seconds.
vi.setConfig({ testTimeout: 90_000 });

const BASIC = `Basic ${Buffer.from(`${DEMO.username}:${DEMO.password}`).toString('base64')}`;

interface Seen {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

/** One fetch from the page, with the response fields a script on that page can read. */
const fetchFrom = (
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'omit' },
) =>
  page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, { credentials: 'include', ...init });
        const names = ['www-authenticate', 'etag', 'location', 'authentication-info', 'content-type'];
        return {
          status: response.status,
          headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
          body: await response.text(),
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  ) as Promise<Seen | { error: string }>;

const pageAt = async (origin: string) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(origin);
  return page;
};

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const param = (challenge: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(challenge)?.[1] ?? '';

describe('a page on a listed origin', () => {
  it('reads a list and creates a book with Basic (a preflighted POST), reading ETag and Location', async () => {
    const page = await pageAt(app.origin);
    const list = (await fetchFrom(page, `${api.baseUrl}/api/books`, { headers: { Authorization: BASIC } })) as Seen;
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toBeInstanceOf(Array);
    const created = (await fetchFrom(page, `${api.baseUrl}/api/books`, {
      method: 'POST',
      headers: { Authorization: BASIC, 'Content-Type': 'application/json', 'Idempotency-Key': '"browser-1"' },
      body: JSON.stringify({ title: 'Dawn', author: 'Octavia E. Butler', isbn: 'cors-1', publicationYear: 1987 }),
    })) as Seen;
    expect(created.status).toBe(201);
    expect(created.headers.etag).toMatch(/^"/);
    expect(created.headers.location).toMatch(/\/api\/books\/\d+$/);
  });

  it('reads the 401 challenge and answers it with Digest, reading Authentication-Info', async () => {
    const page = await pageAt(app.origin);
    const url = `${api.baseUrl}/api/books?limit=1`;
    // Without credentials mode "omit" Chromium would answer the Basic challenge with its own login prompt.
    const challenged = (await fetchFrom(page, url, { credentials: 'omit' })) as Seen;
    expect(challenged.status).toBe(401);
    const challenge = challenged.headers['www-authenticate'] ?? '';
    expect(challenge).toContain('Digest ');
    const realm = param(challenge, 'realm');
    const nonce = param(challenge, 'nonce');
    const opaque = param(challenge, 'opaque');
    const uri = '/api/books?limit=1';
    const cnonce = 'b5d1e3f0a9c2';
    const ha1 = md5(`${DEMO.username}:${realm}:${DEMO.password}`);
    const response = md5(`${ha1}:${nonce}:00000001:${cnonce}:auth:${md5(`GET:${uri}`)}`);
    const authorization = `Digest username="${DEMO.username}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=MD5, qop=auth, nc=00000001, cnonce="${cnonce}", response="${response}", opaque="${opaque}"`;
    const answered = (await fetchFrom(page, url, { headers: { Authorization: authorization } })) as Seen;
    expect(answered.status).toBe(200);
    expect(answered.headers['authentication-info']).toContain('nextnonce=');
  });
});

describe('a page on an origin that is not listed', () => {
  it('cannot read any answer: the browser refuses it', async () => {
    const page = await pageAt(stranger.origin);
    const refused = await fetchFrom(page, `${api.baseUrl}/api/books`, { headers: { Authorization: BASIC } });
    expect(refused).toEqual({ error: expect.stringContaining('Failed to fetch') });
  });
});
