import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrlFile } from '../../local/endpoint-file';
import { SAMPLE_CATALOGUE } from '../../tools/sample-catalogue';
import { endlessBody, startHostileServer, TERMINAL_ATTACK } from '../support/hostile-server';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { runTool, startTool } from '../support/tool-process';

/** `npm run seed` against the local server on Dynoxide, as a user runs it. */
const run = (args: string[], input?: string) => runTool('seed', args, input);

let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const listAll = async () => {
  const response = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } });
  return (await response.json()) as { isbn: string; author: string; publicationYear: number }[];
};

describe('npm run seed', () => {
  it('loads the catalogue once: a second run adds nothing, counts what is there, and exits 0', async () => {
    const first = await run(['--url', api.baseUrl]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${SAMPLE_CATALOGUE.length} added, 0 already there`);
    expect(first.stderr).toContain(`${SAMPLE_CATALOGUE.length}/${SAMPLE_CATALOGUE.length}`);

    const second = await run(['--url', api.baseUrl]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`0 added, ${SAMPLE_CATALOGUE.length} already there`);

    const books = await listAll();
    expect(books.length).toBe(SAMPLE_CATALOGUE.length);
    expect(new Set(books.map((book) => book.isbn)).size).toBe(books.length);
    expect(books.some((book) => /\P{ASCII}/u.test(book.author))).toBe(true);
    const years = books.map((book) => book.publicationYear);
    expect(Math.max(...years) - Math.min(...years)).toBeGreaterThan(500);
  }, 120_000);

  it('makes the README’s page example show a Link header, and filters show several books', async () => {
    const page = await fetch(`${api.baseUrl}/api/books?limit=20`, { headers: { authorization: BASIC_DEMO } });
    expect(page.status).toBe(200);
    expect(page.headers.get('link')).toMatch(/cursor=.*; rel="next"$/);
    const dickens = await fetch(`${api.baseUrl}/api/books?author=charles%20dickens`, {
      headers: { authorization: BASIC_DEMO },
    });
    expect(((await dickens.json()) as unknown[]).length).toBeGreaterThanOrEqual(5);
  });

  it('speaks Digest too, with the password from stdin', async () => {
    const digest = await run(['--url', api.baseUrl, '--user', 'demo', '--scheme', 'digest', '--count', '5'], 'demo\n');
    expect(digest.code, digest.stderr).toBe(0);
    expect(digest.stdout).toContain('0 added, 5 already there');
    const wrong = await run(['--url', api.baseUrl, '--user', 'demo', '--count', '1'], 'wrong\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('refused the credentials');
  }, 60_000);

  it('explains itself, and refuses a wrong option with exit 2 and a pointer to --help', async () => {
    expect((await run(['--help'])).stdout).toContain('Usage: npm run seed');
    const bad = await run(['--count', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--count must be a positive integer');
    expect(bad.stderr).toContain('--help');
    const unreachable = await run(['--url', 'http://127.0.0.1:1', '--count', '1']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach');
    const help = (await run(['--help'])).stdout;
    expect(help).toContain('--url <url>');
    expect(help).toContain('the npm start');
    expect(help).toContain('--allow-insecure-http');
  }, 60_000);

  it('names the mistake when --url is the API’s /api/books rather than its base URL, and sends nothing', async () => {
    for (const suffix of ['/api/books', '/api/books/', '/api']) {
      const given = await run(['--url', `${api.baseUrl}${suffix}`, '--count', '1']);
      expect(given.code).toBe(2);
      expect(given.stderr).toContain(
        `ends in ${suffix.replace(/\/$/, '')}: give the base URL, what comes before /api/books`,
      );
      expect(given.stderr).toContain(`(${api.baseUrl})`);
    }
  }, 60_000);

  it('refuses to send the password over plain http:// to a host that is not this machine', async () => {
    const refused = await run(['--url', 'http://example.test/prod', '--count', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'refusing to send credentials over plain http:// to example.test, which is not this machine: use https://, or pass --allow-insecure-http',
    );
  }, 60_000);

  it('without --url seeds the npm start whose address file is in DATA_DIR, and calls a stale file stale', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seed-data-'));
    try {
      writeFileSync(apiUrlFile(dataDir), `${api.baseUrl}\n`);
      const found = await startTool('seed', ['--count', '2'], { env: { DATA_DIR: dataDir } }).done;
      expect(found.code, found.stderr).toBe(0);
      expect(found.stderr).toContain(`into ${api.baseUrl}/api/books`);

      writeFileSync(apiUrlFile(dataDir), 'http://127.0.0.1:1\n');
      const stale = await startTool('seed', ['--count', '2'], { env: { DATA_DIR: dataDir } }).done;
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain('cannot reach http://127.0.0.1:1/');
      expect(stale.stderr).toContain(
        'nothing answers there: it is stale, left by an npm start that did not stop cleanly',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('prints a hostile server’s answer with its control characters escaped, and stops at 1 MiB', async () => {
    const escapes = await startHostileServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(TERMINAL_ATTACK);
    });
    const printed = await run(['--url', escapes.baseUrl, '--count', '1']);
    await escapes.close();
    expect(printed.code).toBe(1);
    expect(printed.stderr).not.toContain('\x1b');
    expect(printed.stderr).not.toContain('\x07');
    expect(printed.stderr).toContain('got 500: \\x1b[2J\\x1b]0;owned\\x07');

    const huge = await startHostileServer((_request, response) => endlessBody(response, 64, 201));
    const bounded = await run(['--url', huge.baseUrl, '--count', '1']);
    await huge.close();
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toMatch(
      /answer too large: POST http:\/\/127\.0\.0\.1:\d+\/api\/books is over the 1048576 bytes/,
    );
  }, 60_000);

  it('says how far it got when interrupted, and exits 130', async () => {
    let answered = 0;
    let release: () => void = () => {};
    const third = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await startHostileServer((_request, response) => {
      answered++;
      if (answered === 3) release();
      setTimeout(() => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end('{}');
      }, 1_000);
    });
    const { child, done } = startTool('seed', ['--url', slow.baseUrl]);
    await third;
    child.kill('SIGINT');
    const interrupted = await done;
    await slow.close();
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(
      new RegExp(
        `SIGINT: stopped after 3 of ${SAMPLE_CATALOGUE.length} books sent \\(3 added, 0 already there\\); run it again to add the rest\\.`,
      ),
    );
  }, 60_000);
});
