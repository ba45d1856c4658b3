import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_BOOKS } from '../../tools/seed-catalogue';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { runTool } from '../support/tool-process';

/** `npm run seed -- <args>` as a user runs it. */
const seed = (args: string[], stdin = '') => runTool('seed', args, stdin);

describe('npm run seed', () => {
  let api: Awaited<ReturnType<typeof startLocalApi>>;
  beforeAll(async () => {
    api = await startLocalApi();
  });
  afterAll(() => api?.close());

  const listAll = async () => {
    const response = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } });
    expect(response.status).toBe(200);
    return (await response.json()) as { isbn: string; author: string; publicationYear: number }[];
  };

  it('has a catalogue of at least 50 books: unique ISBNs, non-ASCII names, centuries apart, authors with many books', () => {
    expect(SAMPLE_BOOKS.length).toBeGreaterThanOrEqual(50);
    expect(new Set(SAMPLE_BOOKS.map((book) => book.isbn)).size).toBe(SAMPLE_BOOKS.length);
    expect(SAMPLE_BOOKS.some((book) => /[^ -~]/.test(book.author))).toBe(true);
    const centuries = new Set(SAMPLE_BOOKS.map((book) => Math.floor(book.publicationYear / 100)));
    expect(centuries.size).toBeGreaterThanOrEqual(6);
    const perAuthor = new Map<string, number>();
    for (const { author } of SAMPLE_BOOKS) perAuthor.set(author, (perAuthor.get(author) ?? 0) + 1);
    expect([...perAuthor.values()].filter((books) => books >= 5).length).toBeGreaterThanOrEqual(3);
  });

  it('adds the books through the API, then adds nothing on a second run, exiting 0 both times', async () => {
    const first = await seed(['--url', api.baseUrl, '--count', '30']);
    expect(first.stderr).toContain('30/30');
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('Added 30 books; 0 were already there (of 30).');
    expect(first.stdout).toContain(`curl -i -u demo:demo '${api.baseUrl}/api/books?limit=20'`);
    const afterFirst = await listAll();
    expect(afterFirst).toHaveLength(30);
    expect(new Set(afterFirst.map((book) => book.isbn)).size).toBe(30);

    const second = await seed(['--url', api.baseUrl, '--count', '30']);
    expect(second).toMatchObject({ code: 0 });
    expect(second.stdout).toContain('Added 0 books; 30 were already there (of 30).');
    expect(await listAll()).toEqual(afterFirst);
  }, 60_000);

  it('authenticates with Digest and a password from stdin, adding only what is missing', async () => {
    const run = await seed(['--url', api.baseUrl, '--user', 'demo', '--auth', 'digest'], 'demo\n');
    expect(run.stderr).not.toContain('seed:');
    expect(run).toMatchObject({ code: 0 });
    const missing = SAMPLE_BOOKS.length - 30;
    expect(run.stdout).toContain(`Added ${missing} books; 30 were already there (of ${SAMPLE_BOOKS.length}).`);
    const books = await listAll();
    expect(books).toHaveLength(SAMPLE_BOOKS.length);
    expect(new Set(books.map((book) => book.isbn)).size).toBe(SAMPLE_BOOKS.length);
    expect(books.filter((book) => book.author === 'Фёдор Достоевский')).toHaveLength(5);
  }, 60_000);

  it('fails with exit 1 and one clear line for wrong credentials, writing nothing', async () => {
    const run = await seed(['--url', api.baseUrl, '--user', 'demo'], 'wrong\n');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused the credentials of "demo" (401)');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await listAll()).toHaveLength(SAMPLE_BOOKS.length);
  });

  it('fails with exit 1 when nothing answers at the URL', async () => {
    const run = await seed(['--url', 'http://127.0.0.1:9']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach http://127.0.0.1:9');
  });

  it('rejects usage mistakes with exit 2 and a pointer to --help', async () => {
    for (const args of [
      ['--count', '0'],
      ['--count', 'many'],
      ['--auth', 'bearer'],
      ['--url', 'ftp://x'],
      ['--bogus'],
      ['extra'],
    ]) {
      const run = await seed(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain('Run "npm run seed -- --help" for usage.');
    }
  });

  it('explains itself with --help', async () => {
    const run = await seed(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run seed -- [options]');
    for (const option of ['--url', '--user', '--auth', '--count']) expect(run.stdout).toContain(option);
  });
});
