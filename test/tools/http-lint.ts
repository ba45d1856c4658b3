/**
 * Usage: tsx test/tools/http-lint.ts BASE_URL HTTPLINT USER:PASSWORD REDBOT
 * For a local server started with PUBLIC_READS=true.
 * Sends one request per status the API answers (200, 201, 204, 304, 400, 401, 404, 405, 409, 412,
 * 415, and OPTIONS), captures each raw response off the socket (chunked framing included),
 * and runs httplint on it. Any WARN or BAD note fails, but for the Keep-Alive field Node's HTTP
 * server adds to every keep-alive response (deprecated, and not removable without disabling its
 * idle timeout). Prints every note. HEAD is left to test/e2e/http-methods.test.ts (the GET's headers,
 * no body): httplint reads a response alone and would take its Content-Length for a missing body.
 */
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';

const [baseUrl, httplint, credentials, redbot] = process.argv.slice(2) as [string, string, string, string];
const { hostname, port } = new URL(baseUrl);
const AUTH = `Basic ${Buffer.from(credentials).toString('base64')}`;
/**
 * Notes accepted: the Keep-Alive field Node adds, and httplint's note on any 400 status itself (it
 * says what a 400 means, not what is wrong with the response).
 */
const ACCEPTED = [/Keep-Alive header is deprecated/, /The server didn't understand the request/];

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
}

/** The raw response to one request on a connection of its own. */
const exchange = (method: string, path: string, headers: Record<string, string>, body = '') =>
  new Promise<Buffer>((done, fail) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const lines = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      'User-Agent: http-lint',
      ...Object.entries({ ...headers, ...(body && { 'Content-Length': String(Buffer.byteLength(body)) }) }).map(
        ([name, value]) => `${name}: ${value}`,
      ),
    ];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', fail);
    // The server keeps the connection; the whole response has arrived once it stays quiet.
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', () => {
      clearTimeout(timer);
      timer = setTimeout(() => socket.end(), 300);
    });
    socket.on('close', () => done(Buffer.concat(chunks)));
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });

const json = (value: unknown) => JSON.stringify(value);
const book = (isbn: string) => json({ title: 'Kindred', author: 'Octavia E. Butler', isbn, publicationYear: 1979 });
const JSON_AUTH = { Authorization: AUTH, 'Content-Type': 'application/json' };

const main = async () => {
  const isbn = `lint-${Date.now()}`;
  const created = (await exchange('POST', '/api/books', JSON_AUTH, book(isbn))).toString('latin1');
  const id = /"id":(\d+)/.exec(created)?.[1];
  const etag = /\r\nETag: ("[^"]*")/i.exec(created)?.[1];
  if (!id || !etag) throw new Error(`could not create a book: ${created}`);
  const cases: Case[] = [
    { name: 'list', method: 'GET', path: '/api/books', headers: { Authorization: AUTH }, status: 200 },
    { name: 'page', method: 'GET', path: '/api/books?limit=1', headers: { Authorization: AUTH }, status: 200 },
    { name: 'read', method: 'GET', path: `/api/books/${id}`, headers: { Authorization: AUTH }, status: 200 },
    {
      name: 'not modified',
      method: 'GET',
      path: `/api/books/${id}`,
      headers: { Authorization: AUTH, 'If-None-Match': etag },
      status: 304,
    },
    { name: 'create', method: 'POST', path: '/api/books', headers: JSON_AUTH, body: book(`${isbn}-2`), status: 201 },
    { name: 'invalid', method: 'POST', path: '/api/books', headers: JSON_AUTH, body: json({}), status: 400 },
    { name: 'no credentials', method: 'POST', path: '/api/books', status: 401 },
    { name: 'no book', method: 'GET', path: '/api/books/999999999', headers: { Authorization: AUTH }, status: 404 },
    { name: 'no path', method: 'GET', path: '/api/nothing', status: 404 },
    { name: 'other method', method: 'DELETE', path: '/api/books', status: 405 },
    { name: 'options', method: 'OPTIONS', path: '/api/books', status: 204 },
    { name: 'taken isbn', method: 'POST', path: '/api/books', headers: JSON_AUTH, body: book(isbn), status: 409 },
    {
      name: 'stale',
      method: 'PATCH',
      path: `/api/books/${id}`,
      headers: { ...JSON_AUTH, 'If-Match': '"stale"' },
      body: json({ title: 'x' }),
      status: 412,
    },
    {
      name: 'media type',
      method: 'POST',
      path: '/api/books',
      headers: { Authorization: AUTH, 'Content-Type': 'text/plain' },
      body: 'x',
      status: 415,
    },
    { name: 'openapi', method: 'GET', path: '/api/openapi.json', status: 200 },
    { name: 'delete', method: 'DELETE', path: `/api/books/${id}`, headers: { Authorization: AUTH }, status: 204 },
  ];
  let failures = 0;
  for (const c of cases) {
    const raw = await exchange(c.method, c.path, c.headers ?? {}, c.body);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw.toString('latin1'))?.[1]);
    const lint = spawnSync(httplint, ['-n'], { input: raw, encoding: 'utf8' });
    const notes = lint.stdout.split('\n').filter((line) => /^\s*\* \[/.test(line));
    const problems = notes.filter((line) => /\[(WARN|BAD)\]/.test(line) && !ACCEPTED.some((ok) => ok.test(line)));
    const wrongStatus = status !== c.status;
    const empty = notes.length === 0;
    console.log(`${c.method} ${c.path} → ${status} (${c.name})`);
    for (const note of notes) console.log(`  ${note.trim()}`);
    if (wrongStatus) console.log(`  expected ${c.status}`);
    if (empty) console.log(`  httplint said nothing (could not parse the response): ${lint.stderr}`);
    if (problems.length > 0 || wrongStatus || empty || lint.status !== 0) failures += 1;
  }
  const reads = ['/api/books', '/api/books?limit=1', `/api/books/${id}`, '/api/openapi.json', '/api/docs'];
  // A book for REDbot to read: the one above is deleted by the last case.
  const kept = (await exchange('POST', '/api/books', JSON_AUTH, book(`${isbn}-3`))).toString('latin1');
  reads.push(`/api/books/${/"id":(\d+)/.exec(kept)?.[1]}`);
  for (const path of reads) failures += redbotFindings(`${baseUrl}${path}`);
  if (failures > 0) {
    console.error(`${failures} response(s) with httplint or REDbot warnings, or the wrong status`);
    process.exit(1);
  }
  console.log(`httplint: no warning on ${cases.length} responses; REDbot: none on ${reads.length} public reads`);
};

interface RedNote {
  level: string;
  summary: string;
}

/** REDbot's notes on one public read (it sends its own follow-up requests: conditional, ranged, gzip). */
const redbotFindings = (url: string, attempt = 1): number => {
  const run = spawnSync(redbot, ['-o', 'har', url], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const entries = (
    JSON.parse(run.stdout || '{"log":{"entries":[]}}') as {
      log: { entries: Array<{ _red_messages: RedNote[] }> };
    }
  ).log.entries;
  const notes = entries.flatMap((entry) => entry._red_messages);
  // REDbot gives up silently when one of its own follow-up requests times out (seen once in CI on a
  // loaded machine): a run with no notes at all is tried once more, and its error output shown.
  if (notes.length === 0 && attempt === 1) {
    console.log(`REDbot ${url}: no notes (exit ${run.status}) ${run.stderr.trim()}; trying once more`);
    return redbotFindings(url, 2);
  }
  console.log(`REDbot ${url}`);
  for (const note of notes) console.log(`  * [${note.level.toUpperCase()}] ${note.summary}`);
  const problems = notes.filter(
    (note) => /^(WARN|BAD)$/i.test(note.level) && !ACCEPTED.some((ok) => ok.test(note.summary)),
  );
  return problems.length > 0 || notes.length === 0 || run.status !== 0 ? 1 : 0;
};

await main();
