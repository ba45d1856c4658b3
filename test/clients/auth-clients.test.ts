import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';
import { requireTools } from './required-tools';

const run = promisify(execFile);
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  requireTools('npm run test:clients', ['curl']);
  api = await startLocalApi();
});
afterAll(() => api.close());

let seq = 0;
const bookJson = () =>
  JSON.stringify({
    title: 'Client test',
    author: 'Tester',
    isbn: `client-${process.pid}-${++seq}`,
    publicationYear: 2020,
  });

/** curl prints the status code last, so a body and a code come back from one call. */
const curl = async (...args: string[]) => {
  const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', ...args]);
  const lines = stdout.split('\n');
  return { status: Number(lines.pop()), body: lines.join('\n') };
};

/** POST a new book with curl, authenticating as demo with the given curl options. */
const curlCreate = (...auth: string[]) =>
  curl(
    ...auth,
    '-u',
    'demo:demo',
    '-H',
    'content-type: application/json',
    '-d',
    bookJson(),
    `${api.baseUrl}/api/books`,
  );

describe('real clients against the local API (demo:demo)', () => {
  it("a request without credentials gets 401, a Digest challenge and the contract's Basic challenge", async () => {
    const response = await fetch(`${api.baseUrl}/api/books`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Digest realm="books", qop="auth", algorithm=MD5, nonce="[^"]+", .*, Basic realm="books", charset="UTF-8"$/,
    );
  });

  it('curl -u (Basic) reads and writes', async () => {
    expect((await curl('-u', 'demo:demo', `${api.baseUrl}/api/books`)).status).toBe(200);
    const created = await curlCreate();
    expect(created.status).toBe(201);
  });

  it('curl --digest reads with a query string and writes', async () => {
    expect(
      (await curl('--digest', '-u', 'demo:demo', `${api.baseUrl}/api/books?author=Le%20Guin&year=1974`)).status,
    ).toBe(200);
    const created = await curlCreate('--digest');
    expect(created.status).toBe(201);
    const id = JSON.parse(created.body).id;
    expect((await curl('--digest', '-u', 'demo:demo', '-X', 'DELETE', `${api.baseUrl}/api/books/${id}`)).status).toBe(
      204,
    );
  });

  it('curl --anyauth picks a scheme that works', async () => {
    expect((await curl('--anyauth', '-u', 'demo:demo', `${api.baseUrl}/api/books`)).status).toBe(200);
  });

  it('curl with a wrong password gets 401', async () => {
    expect((await curl('--digest', '-u', 'demo:wrong', `${api.baseUrl}/api/books`)).status).toBe(401);
    expect((await curl('-u', 'demo:wrong', `${api.baseUrl}/api/books`)).status).toBe(401);
  });

  it('wget --user --password reads and writes', async () => {
    const { stdout } = await run('wget', [
      '-q',
      '-O',
      '-',
      '--user',
      'demo',
      '--password',
      'demo',
      `${api.baseUrl}/api/books?year=2020`,
    ]);
    expect(Array.isArray(JSON.parse(stdout))).toBe(true);
    const posted = await run('wget', [
      '-q',
      '-O',
      '-',
      '--user',
      'demo',
      '--password',
      'demo',
      '--header',
      'content-type: application/json',
      `--post-data=${bookJson()}`,
      `${api.baseUrl}/api/books`,
    ]);
    expect(JSON.parse(posted.stdout).id).toEqual(expect.any(Number));
  });

  it('Python requests: HTTPBasicAuth, HTTPDigestAuth, and several Digest calls in one Session', async () => {
    const script = `
import json, sys, requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth
base = sys.argv[1]
out = {}
out['basic'] = requests.get(base, auth=HTTPBasicAuth('demo', 'demo')).status_code
out['digest'] = requests.get(base, auth=HTTPDigestAuth('demo', 'demo')).status_code
s = requests.Session()
s.auth = HTTPDigestAuth('demo', 'demo')
out['session'] = [s.get(base, params={'author': 'Ursula K. Le Guin'}).status_code for _ in range(3)]
created = s.post(base, json=json.loads(sys.argv[2]))
out['post'] = created.status_code
out['patch'] = s.patch(f"{base}/{created.json()['id']}", json={'title': 'Patched'}).status_code
out['wrong'] = requests.get(base, auth=HTTPDigestAuth('demo', 'nope')).status_code
print(json.dumps(out))
`;
    const { stdout } = await run('python3', ['-c', script, `${api.baseUrl}/api/books`, bookJson()]);
    expect(JSON.parse(stdout)).toEqual({
      basic: 200,
      digest: 200,
      session: [200, 200, 200],
      post: 201,
      patch: 200,
      wrong: 401,
    });
  });
});

describe('Digest over HTTP', () => {
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const answer = (challenge: string, method: string, uri: string) => {
    const nonce = /nonce="([^"]+)"/.exec(challenge)?.[1];
    const opaque = /opaque="([^"]+)"/.exec(challenge)?.[1];
    const ha1 = md5('demo:books:demo');
    const response = md5(`${ha1}:${nonce}:00000001:abc:auth:${md5(`${method}:${uri}`)}`);
    return `Digest username="demo", realm="books", nonce="${nonce}", uri="${uri}", qop=auth, nc=00000001, cnonce="abc", response="${response}", opaque="${opaque}"`;
  };
  const challenge = async () => (await fetch(`${api.baseUrl}/api/books`)).headers.get('www-authenticate') as string;

  it('refuses a replayed Authorization header with stale=true', async () => {
    const header = answer(await challenge(), 'GET', '/api/books');
    expect((await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: header } })).status).toBe(200);
    const replay = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: header } });
    expect(replay.status).toBe(401);
    expect(replay.headers.get('www-authenticate')).toMatch(/stale=true, Basic realm="books", charset="UTF-8"$/);
  });

  it('refuses a header made for another request target', async () => {
    const header = answer(await challenge(), 'GET', '/api/books/1');
    expect((await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: header } })).status).toBe(401);
  });

  it.each([
    ['a malformed header', 'Digest ,,,='],
    ['an oversized header', `Digest username="${'x'.repeat(6000)}"`],
    ['an unknown scheme', 'Negotiate abc'],
    ['bad base64', 'Basic ####'],
  ])('answers %s with 401, never a 5xx', async (_, authorization) => {
    const response = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Digest /);
  });
});

describe('publicReads', () => {
  it('opens the two GET routes and keeps writes protected', async () => {
    const open = await startLocalApi({ publicReads: true });
    try {
      expect((await fetch(`${open.baseUrl}/api/books`)).status).toBe(200);
      expect((await fetch(`${open.baseUrl}/api/books/987654`)).status).toBe(404);
      const write = await fetch(`${open.baseUrl}/api/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bookJson(),
      });
      expect(write.status).toBe(401);
    } finally {
      await open.close();
    }
  });
});

describe('npm run users', () => {
  const users = (args: string[], input?: string) =>
    new Promise<{ code: number | null; output: string }>((done) => {
      const child = execFile('npx', ['tsx', 'tools/users.ts', ...args], (error, stdout, stderr) =>
        done({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
      );
      child.stdin?.end(input ?? '');
    });

  it('adds a user from stdin (never argv) who can then authenticate, lists and removes it', async () => {
    const target = ['--endpoint', api.tables.endpoint, '--table', api.tables.names.auth];
    const added = await users(['add', 'carol', '--role', 'reader', ...target], 'pa:ss word of the blue heron\n');
    expect(added.output).toContain('User "carol" saved');
    expect((await curl('-u', 'carol:pa:ss word of the blue heron', `${api.baseUrl}/api/books`)).status).toBe(200);
    expect(
      (await curl('--digest', '-u', 'carol:pa:ss word of the blue heron', `${api.baseUrl}/api/books`)).status,
    ).toBe(200);
    expect((await users(['list', ...target])).output).toMatch(/carol\tbooks/);
    expect((await users(['remove', 'carol', ...target])).output).toContain('User "carol" removed');
    expect((await curl('-u', 'carol:pa:ss word of the blue heron', `${api.baseUrl}/api/books`)).status).toBe(401);
  }, 60_000);

  it('refuses a password under 15 characters or a guessable one, and makes a machine secret', async () => {
    const target = ['--endpoint', api.tables.endpoint, '--role', 'editor', '--table', api.tables.names.auth];
    const short = await users(['add', 'dave', ...target], 'short-pw1\n');
    expect(short.code).toBe(2);
    expect(short.output).toContain('at least 15 characters');
    for (const guessable of [
      '123456789012345',
      'passwordpassword',
      'aaaaaaaaaaaaaaa',
      ' '.repeat(15),
      'davedavedavedave',
    ]) {
      const refused = await users(['add', 'dave', ...target], `${guessable}\n`);
      expect(refused.code, guessable).toBe(2);
      expect(refused.output).toContain('four or more unrelated words');
    }
    const machine = await users(['add', 'importer', '--generate', ...target]);
    const secret = /shown once, keep it safe\): (\S+)/.exec(machine.output)?.[1] ?? '';
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect((await curl('-u', `importer:${secret}`, `${api.baseUrl}/api/books`)).status).toBe(200);
  }, 60_000);

  it('explains its usage', async () => {
    expect((await users(['--help'])).output).toContain('Usage: npm run users');
    const bad = await users(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('unknown command');
  }, 30_000);
});
