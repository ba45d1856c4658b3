import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * The client matrix: every common Digest client against the local server, for each Digest offer.
 * Each client does a GET, a GET whose query holds "=" and non-ASCII, a POST with a JSON body, and a
 * GET as a UTF-8 user; a counting proxy in front of the server sees every 401 leg, which shows
 * whether a client honours `nextnonce` (fewer challenges than requests in one session).
 */
const run = promisify(execFile);
const CLIENT_TIMEOUT_MS = 60_000;

type Offer = 'MD5' | 'SHA-256' | 'MD5,SHA-256';
interface Cells {
  get: number;
  query: number;
  post: number;
  utf8: number;
}
interface Outcome extends Cells {
  /** 401 legs seen by the proxy while the client made the requests above. */
  challenges: number;
  requests: number;
}

const UTF8_USER = { username: 'jörg', password: 'pässwörd' };
/** "=" inside a value and a non-ASCII value, written as a person would type them. */
const QUERY_PATH = '/api/books?author=a=b&title=Jörg';

let seq = 0;
const bookJson = () =>
  JSON.stringify({ title: 'Matrix', author: 'Tester', isbn: `matrix-${process.pid}-${++seq}`, publicationYear: 2020 });

/** Forwards every request unchanged to the server and records each response's status. */
const countingProxy = async (target: string) => {
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const forward = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.rawHeaders as unknown as Record<string, string> },
      (answer) => {
        statuses.push(answer.statusCode ?? 0);
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statuses,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
};
type Proxy = Awaited<ReturnType<typeof countingProxy>>;

/** Runs a client's requests and counts what the proxy saw meanwhile. */
const measure = async (proxy: Proxy, requests: number, cells: () => Promise<Cells>): Promise<Outcome> => {
  proxy.statuses.length = 0;
  const result = await cells();
  return { ...result, challenges: proxy.statuses.filter((status) => status === 401).length, requests };
};

const lastStatus = (output: string) => {
  const codes = [...output.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
  return codes.at(-1) ?? 0;
};

const curlStatus = async (
  mode: string,
  base: string,
  path: string,
  user = 'demo',
  password = 'demo',
  body?: string,
) => {
  const post = body ? ['-H', 'content-type: application/json', '-d', body] : [];
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    mode,
    '-u',
    `${user}:${password}`,
    ...post,
    `${base}${path}`,
  ]);
  return Number(stdout);
};

const wgetStatus = async (base: string, path: string, user = 'demo', password = 'demo', body?: string) => {
  const post = body ? ['--header', 'content-type: application/json', `--post-data=${body}`] : [];
  const result = await run('wget', [
    '-S',
    '-O',
    '/dev/null',
    '--user',
    user,
    '--password',
    password,
    ...post,
    `${base}${path}`,
  ]).catch((error: { stderr: string }) => error);
  return lastStatus(result.stderr);
};

const httpieStatus = async (base: string, path: string, user = 'demo', password = 'demo', body?: string) => {
  const args = ['--ignore-stdin', '--print=h', '--auth-type=digest', '-a', `${user}:${password}`];
  const request = body ? [...args, '--raw', body, 'POST', `${base}${path}`] : [...args, 'GET', `${base}${path}`];
  const result = await run('http', request).catch((error: { stdout: string }) => error);
  return lastStatus(result.stdout);
};

/** Python requests: one call per request with HTTPDigestAuth, and the same requests in one Session. */
const PYTHON = `
import json, sys, requests
from requests.auth import HTTPDigestAuth
base, query, body, mode = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
demo, jorg = HTTPDigestAuth('demo', 'demo'), HTTPDigestAuth('jörg', 'pässwörd')
if mode == 'session':
    s = requests.Session(); s.auth = demo
    get, q, post = s.get(base + '/api/books'), s.get(base + query), s.post(base + '/api/books', json=body)
else:
    get = requests.get(base + '/api/books', auth=demo)
    q = requests.get(base + query, auth=demo)
    post = requests.post(base + '/api/books', json=body, auth=demo)
utf8 = requests.get(base + '/api/books', auth=jorg)
print(json.dumps({'get': get.status_code, 'query': q.status_code, 'post': post.status_code, 'utf8': utf8.status_code}))
`;

/** Java 17: HttpURLConnection with an Authenticator, all requests in one JVM (it keeps auth state). */
const JAVA = `
import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;

public class Matrix {
  static String user, password;
  static int call(String method, String url, String body) throws Exception {
    // toASCIIString percent-encodes non-ASCII as UTF-8; the raw URL would go out as ISO-8859-1 bytes.
    HttpURLConnection c = (HttpURLConnection) new URL(new URI(url).toASCIIString()).openConnection();
    c.setRequestMethod(method);
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("content-type", "application/json");
      c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }
    int status = c.getResponseCode();
    InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream();
    if (in != null) in.readAllBytes();
    return status;
  }
  public static void main(String[] a) throws Exception {
    Authenticator.setDefault(new Authenticator() {
      protected PasswordAuthentication getPasswordAuthentication() {
        return new PasswordAuthentication(user, password.toCharArray());
      }
    });
    user = "demo"; password = "demo";
    int get = call("GET", a[0] + "/api/books", null);
    int query = call("GET", a[0] + a[1], null);
    int post = call("POST", a[0] + "/api/books", a[2]);
    // Java caches credentials per realm, so the UTF-8 user runs in a second JVM.
    System.out.println("{\\"get\\":" + get + ",\\"query\\":" + query + ",\\"post\\":" + post + "}");
  }
}
`;
const JAVA_UTF8 = JAVA.replace('user = "demo"; password = "demo";', 'user = a[3]; password = a[4];');

/** digest-fetch: one client object for all requests, configured with the first algorithm offered. */
const DIGEST_FETCH = `
import DigestClient from 'digest-fetch';
const [base, query, body, algorithm] = process.argv.slice(2);
const demo = new DigestClient('demo', 'demo', { algorithm });
const jorg = new DigestClient('jörg', 'pässwörd', { algorithm });
const get = (await demo.fetch(base + '/api/books')).status;
const q = (await demo.fetch(base + query)).status;
const post = (await demo.fetch(base + '/api/books', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
const utf8 = (await jorg.fetch(base + '/api/books')).status;
console.log(JSON.stringify({ get, query: q, post, utf8 }));
`;

const workDir = mkdtempSync(join(tmpdir(), 'auth-matrix-'));
writeFileSync(join(workDir, 'Matrix.java'), JAVA);
const javaUtf8Dir = mkdtempSync(join(tmpdir(), 'auth-matrix-utf8-'));
writeFileSync(join(javaUtf8Dir, 'Matrix.java'), JAVA_UTF8);
// In the repository, so that the script's import finds the digest-fetch package.
const digestFetchScript = join(process.cwd(), `.digest-fetch-matrix-${process.pid}.mjs`);
writeFileSync(digestFetchScript, DIGEST_FETCH);
afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  rmSync(javaUtf8Dir, { recursive: true, force: true });
  rmSync(digestFetchScript, { force: true });
});

const clients: Record<string, (proxy: Proxy, offer: Offer) => Promise<Outcome>> = {
  'curl --digest': (proxy) =>
    measure(proxy, 4, async () => ({
      get: await curlStatus('--digest', proxy.baseUrl, '/api/books'),
      query: await curlStatus('--digest', proxy.baseUrl, encodeURI(QUERY_PATH)),
      post: await curlStatus('--digest', proxy.baseUrl, '/api/books', 'demo', 'demo', bookJson()),
      utf8: await curlStatus('--digest', proxy.baseUrl, '/api/books', UTF8_USER.username, UTF8_USER.password),
    })),
  'curl --anyauth': (proxy) =>
    measure(proxy, 4, async () => ({
      get: await curlStatus('--anyauth', proxy.baseUrl, '/api/books'),
      query: await curlStatus('--anyauth', proxy.baseUrl, encodeURI(QUERY_PATH)),
      post: await curlStatus('--anyauth', proxy.baseUrl, '/api/books', 'demo', 'demo', bookJson()),
      utf8: await curlStatus('--anyauth', proxy.baseUrl, '/api/books', UTF8_USER.username, UTF8_USER.password),
    })),
  wget: (proxy) =>
    measure(proxy, 4, async () => ({
      get: await wgetStatus(proxy.baseUrl, '/api/books'),
      query: await wgetStatus(proxy.baseUrl, QUERY_PATH),
      post: await wgetStatus(proxy.baseUrl, '/api/books', 'demo', 'demo', bookJson()),
      utf8: await wgetStatus(proxy.baseUrl, '/api/books', UTF8_USER.username, UTF8_USER.password),
    })),
  httpie: (proxy) =>
    measure(proxy, 4, async () => ({
      get: await httpieStatus(proxy.baseUrl, '/api/books'),
      query: await httpieStatus(proxy.baseUrl, QUERY_PATH),
      post: await httpieStatus(proxy.baseUrl, '/api/books', 'demo', 'demo', bookJson()),
      utf8: await httpieStatus(proxy.baseUrl, '/api/books', UTF8_USER.username, UTF8_USER.password),
    })),
  'Python requests, one call each': (proxy) =>
    measure(proxy, 4, async () =>
      JSON.parse((await run('python3', ['-c', PYTHON, proxy.baseUrl, QUERY_PATH, bookJson(), 'calls'])).stdout),
    ),
  'Python requests, one Session': (proxy) =>
    measure(proxy, 4, async () =>
      JSON.parse((await run('python3', ['-c', PYTHON, proxy.baseUrl, QUERY_PATH, bookJson(), 'session'])).stdout),
    ),
  'Java 17 HttpURLConnection': async (proxy) => {
    const demo = await measure(proxy, 3, async () => ({
      ...JSON.parse(
        (await run('java', ['Matrix.java', proxy.baseUrl, QUERY_PATH, bookJson()], { cwd: workDir })).stdout,
      ),
      utf8: 0,
    }));
    const utf8 = JSON.parse(
      (
        await run(
          'java',
          ['Matrix.java', proxy.baseUrl, QUERY_PATH, bookJson(), UTF8_USER.username, UTF8_USER.password],
          {
            cwd: javaUtf8Dir,
          },
        )
      ).stdout,
    );
    return { ...demo, utf8: utf8.get };
  },
  'digest-fetch': (proxy, offer) =>
    measure(proxy, 4, async () =>
      JSON.parse(
        (await run('node', [digestFetchScript, proxy.baseUrl, QUERY_PATH, bookJson(), offer.split(',')[0] as string]))
          .stdout,
      ),
    ),
};

const OFFERS: Offer[] = ['MD5', 'SHA-256', 'MD5,SHA-256'];
const results: Record<string, Record<string, Outcome>> = {};

describe.each(OFFERS)('Digest offer %s', (offer) => {
  let proxy: Proxy;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // The authorizer builds its authenticator once per process: fresh modules read the new offer.
    vi.resetModules();
    const { startLocalApi } = await import('../support/local-api');
    const { userRecord } = await import('../../admin/user-records');
    const { DynamoUserStore } = await import('../../shared/store/dynamodb-auth-store');
    const api = await startLocalApi({ env: { DIGEST_ALGORITHM: offer } });
    await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put(
      userRecord(UTF8_USER.username, UTF8_USER.password, 'books'),
    );
    proxy = await countingProxy(api.baseUrl);
    close = async () => {
      await proxy.close();
      await api.close();
    };
  });
  afterAll(() => close());

  it.each(Object.keys(clients))(
    '%s: GET, GET with = and non-ASCII, POST JSON, UTF-8 user',
    async (client) => {
      const outcome = await (clients[client] as (typeof clients)[string])(proxy, offer);
      results[offer] = { ...results[offer], [client]: outcome };
      const { challenges, requests, ...cells } = outcome;
      expect(cells).toEqual(EXPECTED[client]?.[offer] ?? { get: 200, query: 200, post: 201, utf8: 200 });
      expect(challenges).toBeGreaterThan(0);
      expect(challenges).toBeLessThanOrEqual(requests * 2);
    },
    CLIENT_TIMEOUT_MS,
  );
});

/** Where a client cannot do what an offer asks, the cell it gets (never a 5xx), with the reason. */
const EXPECTED: Record<string, Partial<Record<Offer, Cells>>> = {
  // wget implements MD5 only: a SHA-256-only offer leaves it nothing to answer.
  wget: { 'SHA-256': { get: 401, query: 401, post: 401, utf8: 401 } },
  // Java 17 hashes user name and password as ISO-8859-1 although charset="UTF-8" is announced, so
  // a non-ASCII name fails with every algorithm; ASCII names work.
  'Java 17 HttpURLConnection': Object.fromEntries(
    OFFERS.map((offer) => [offer, { get: 200, query: 200, post: 201, utf8: 401 }]),
  ),
};

afterAll(() => {
  console.log(JSON.stringify(results, null, 1));
});
