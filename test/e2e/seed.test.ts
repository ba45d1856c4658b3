import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_CATALOGUE } from '../../tools/sample-catalogue';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { runTool } from '../support/tool-process';

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
  }, 60_000);
});
