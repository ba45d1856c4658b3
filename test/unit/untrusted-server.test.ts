import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiUrlFile } from '../../local/endpoint-file';
import { UsageError } from '../../tools/cli';
import { findLocalApi } from '../../tools/local-api-address';
import { escapeControl } from '../../tools/terminal-text';
import {
  AnswerTooLargeError,
  checkTransport,
  isLoopback,
  readBounded,
  WHOLE_LIST_LIMIT_BYTES,
} from '../../tools/untrusted-server';
import { cleanUp } from '../../tools/verify-deployment/cleanup';
import { parseOptions } from '../../tools/verify-deployment/cli';
import { httpClient, TransportError } from '../../tools/verify-deployment/http';
import { formatResult } from '../../tools/verify-deployment/report';
import { RunBooks } from '../../tools/verify-deployment/run-books';
import type { HttpClient, HttpRequest } from '../../tools/verify-deployment/types';

/** What the tools that call a server (seed, load, verify:deployment) hold against it (issue 38, item 5). */

describe('plain http:// is for this machine only', () => {
  it.each(['127.0.0.1', '127.0.0.2', '127.255.0.9', 'localhost', 'LocalHost', '[::1]', '::1', '[::ffff:127.0.0.1]'])(
    '%s is loopback',
    (host) => expect(isLoopback(host)).toBe(true),
  );

  it.each([
    'example.test',
    '10.0.0.1',
    '192.0.2.7',
    '128.0.0.1',
    '[::2]',
    'localhost.example',
    'api.localhost',
    'evil.localhost',
    '0.0.0.0',
    '',
  ])('%s is not loopback', (host) => expect(isLoopback(host)).toBe(false));

  it('refuses http:// to another host unless the user allows it, and never minds https://', () => {
    expect(() => checkTransport(new URL('http://example.test/prod'), false)).toThrow(UsageError);
    expect(() => checkTransport(new URL('http://example.test/prod'), false)).toThrow(
      'refusing to send credentials over plain http:// to example.test, which is not this machine: use https://, or pass --allow-insecure-http',
    );
    expect(() => checkTransport(new URL('http://example.test/prod'), true)).not.toThrow();
    expect(() => checkTransport(new URL('http://127.0.0.1:3000'), false)).not.toThrow();
    expect(() => checkTransport(new URL('https://example.test/prod'), false)).not.toThrow();
  });

  it('is enforced by verify:deployment’s command line, --allow-insecure-http lifting it', () => {
    expect(() => parseOptions(['http://example.test/prod'])).toThrow(/refusing to send credentials over plain http/);
    expect(parseOptions(['http://example.test/prod', '--allow-insecure-http'])?.baseUrl).toBe(
      'http://example.test/prod',
    );
  });
});

describe('what a server sent is printed as text', () => {
  it('shows every control character as an escape: ESC, BEL, CR, newline, DEL, C1, bidi overrides', () => {
    expect(escapeControl('\x1b[32mPASS\x1b[0m')).toBe('\\x1b[32mPASS\\x1b[0m');
    expect(escapeControl('\x1b]0;owned\x07')).toBe('\\x1b]0;owned\\x07');
    expect(escapeControl('a\r\nFAKE')).toBe('a\\x0d\\x0aFAKE');
    expect(escapeControl('\x7f\x9b\u202e\u2066')).toBe('\\x7f\\x9b\\u202e\\u2066');
    expect(escapeControl('Tolstoy, Толстой — 東京 ✓')).toBe('Tolstoy, Толстой — 東京 ✓');
  });

  it('in every line of verify:deployment’s report', () => {
    expect(formatResult({ name: 'x', outcome: 'FAIL', detail: 'got \x1b[2K\rPASS  all' })).toBe(
      'FAIL  x: got \\x1b[2K\\x0dPASS  all',
    );
  });
});

const streamOf = (chunks: number, size: number) => {
  let sent = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, read: () => sent, cancelled: () => cancelled };
};

describe('an answer is read up to a stated limit', () => {
  it('reads an answer within the limit whole', async () => {
    expect(await readBounded(new Response('é'.repeat(10)), 20, 'GET x')).toBe('é'.repeat(10));
  });

  it('stops reading a streamed answer at the limit, and says "answer too large"', async () => {
    const stream = streamOf(1_000, 64 * 1024);
    const reading = readBounded(new Response(stream.body), 1024 * 1024, 'GET http://h/api/books?limit=1');
    await expect(reading).rejects.toThrow(AnswerTooLargeError);
    await expect(reading).rejects.toThrow(
      /^answer too large: GET http:\/\/h\/api\/books\?limit=1 is over the 1048576 bytes/,
    );
    expect(stream.read()).toBeLessThan(20);
    expect(stream.cancelled()).toBe(true);
  });

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const stream = streamOf(10, 10);
    const response = new Response(stream.body, { headers: { 'content-length': '5000000' } });
    await expect(readBounded(response, 1024, 'GET x')).rejects.toThrow(/answer too large/);
    expect(stream.read()).toBeLessThanOrEqual(1);
  });

  it('allows the unpaged list Lambda’s 200 MB', () => {
    expect(WHOLE_LIST_LIMIT_BYTES).toBe(200_000_000);
  });
});

describe('a URL the server wrote', () => {
  it('is not followed with the credentials to another origin than the base URL', async () => {
    const http = httpClient('https://api.example.test/prod', new AbortController().signal);
    const sent = http.send({ target: 'https://collector.example.test/prod/api/books?cursor=2', headers: {} });
    await expect(sent).rejects.toThrow(TransportError);
    await expect(sent).rejects.toThrow('not sent, another origin than https://api.example.test/prod');
  });
});

describe('verify:deployment’s clean-up', () => {
  it('is a FAIL, not a PASS, when it could not list the run’s books to confirm', async () => {
    const books = new RunBooks('RUN1');
    const http: HttpClient = {
      urlOf: (target) => `http://127.0.0.1:9${target}`,
      send: async ({ method = 'GET' }: HttpRequest) =>
        method === 'GET'
          ? { status: 500, headers: new Headers(), text: '' }
          : { status: 204, headers: new Headers(), text: '' },
    };
    const result = await cleanUp(http, { username: 'demo', password: 'demo' }, books);
    expect(result.outcome).toBe('FAIL');
    expect(result.detail).toContain('could not be listed to confirm (status 500)');
  });
});

describe('the tools find the local API as npm start leaves it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'find-api-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('by the address file in DATA_DIR, else PORT, else port 3000', () => {
    const empty = join(dataDir, 'none');
    expect(findLocalApi({ DATA_DIR: empty }).url).toBe('http://127.0.0.1:3000');
    expect(findLocalApi({ DATA_DIR: empty, PORT: '4123' }).url).toBe('http://127.0.0.1:4123');
    mkdirSync(join(dataDir, 'run'));
    writeFileSync(apiUrlFile(join(dataDir, 'run')), 'http://127.0.0.1:45678\n');
    const found = findLocalApi({ DATA_DIR: join(dataDir, 'run'), PORT: '4123' });
    expect(found.url).toBe('http://127.0.0.1:45678');
    expect(found.unreachableHint).toMatch(
      /api-url names http:\/\/127\.0\.0\.1:45678, but nothing answers there: it is stale/,
    );
  });

  it('as verify:deployment’s base URL when none is given', () => {
    expect(parseOptions([], { DATA_DIR: join(dataDir, 'run') })).toMatchObject({
      baseUrl: 'http://127.0.0.1:45678',
      unreachableHint: expect.stringContaining('stale'),
    });
  });
});
