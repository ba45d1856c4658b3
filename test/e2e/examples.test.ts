import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestAuthorization } from '../support/api-client';
import { startLocalApi } from '../support/local-api';

/**
 * Runs examples/books.http as the REST Client / JetBrains HTTP Client would, request by request in
 * order, against a fresh local server on Dynoxide, and checks each `# @expect` status. The
 * runner understands what the file uses: `@name = value` variables, `{{name}}` substitution,
 * `Authorization: Basic|Digest <user> <password>`, and JetBrains response handlers that call
 * `client.global.set` with `response.headers.valueOf`.
 */
interface Example {
  title: string;
  expect: number;
  method: string;
  url: string;
  headers: [string, string][];
  body?: string;
  handler?: string;
}

const FILE = 'examples/books.http';

const parse = (text: string) => {
  const variables = new Map<string, string>();
  for (const match of text.matchAll(/^@(\w+)\s*=\s*(.*)$/gm))
    variables.set(match[1] as string, (match[2] as string).trim());
  const examples: Example[] = [];
  for (const block of text.split(/^###/m).slice(1)) {
    const lines = block.split('\n');
    const title = (lines.shift() ?? '').trim();
    const expected = /^# @expect (\d{3})$/m.exec(block)?.[1];
    const handler = /^> \{%([\s\S]*?)%\}/m.exec(block)?.[1];
    const rest = lines.filter((line) => !line.startsWith('#') && !line.startsWith('> {%'));
    const start = rest.findIndex((line) => /^[A-Z]+ /.test(line));
    const [method, url] = (rest[start] as string).split(' ') as [string, string];
    const headers: [string, string][] = [];
    let i = start + 1;
    for (; i < rest.length && (rest[i] as string).trim() !== ''; i++) {
      const line = rest[i] as string;
      const colon = line.indexOf(':');
      headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    }
    const body = rest.slice(i).join('\n').trim();
    examples.push({
      title,
      expect: Number(expected),
      method,
      url,
      headers,
      ...(body && { body }),
      ...(handler && { handler }),
    });
  }
  return { variables, examples };
};

const { variables, examples } = parse(readFileSync(FILE, 'utf8'));

let api: Awaited<ReturnType<typeof startLocalApi>>;
const globals = new Map<string, string>();
beforeAll(async () => {
  api = await startLocalApi();
  variables.set('baseUrl', api.baseUrl);
});
afterAll(() => api.close());

const substitute = (text: string) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = globals.get(name) ?? variables.get(name);
    if (value === undefined) throw new Error(`${FILE}: {{${name}}} has no value at this point`);
    return value;
  });

const send = async (example: Example) => {
  const url = substitute(example.url);
  const headers = new Headers();
  let credentials: { scheme: string; username: string; password: string } | undefined;
  for (const [name, value] of example.headers) {
    const resolved = substitute(value);
    const auth = /^(Basic|Digest) (\S+) (\S+)$/.exec(resolved);
    if (name.toLowerCase() === 'authorization' && auth) {
      credentials = { scheme: auth[1] as string, username: auth[2] as string, password: auth[3] as string };
    } else headers.set(name, resolved);
  }
  const body = example.body === undefined ? undefined : substitute(example.body);
  const call = (authorization?: string) => {
    const sent = new Headers(headers);
    if (authorization) sent.set('authorization', authorization);
    return fetch(url, { method: example.method, headers: sent, ...(body !== undefined && { body }) });
  };
  if (credentials?.scheme === 'Basic') {
    return call(`Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`);
  }
  const first = await call();
  const challenge = first.headers.get('www-authenticate');
  if (!credentials || first.status !== 401 || !challenge) return first;
  const target = new URL(url);
  return call(digestAuthorization(challenge, example.method, `${target.pathname}${target.search}`, credentials));
};

describe(`${FILE}, run in order against a fresh local server`, () => {
  it('has an expected status on every request, and covers every route, Basic and Digest', () => {
    expect(examples.length).toBeGreaterThan(15);
    for (const example of examples) expect(example.expect, example.title).toBeGreaterThanOrEqual(200);
    const routes = new Set(examples.map((e) => `${e.method} ${e.url.includes('/api/books') ? 'books' : e.url}`));
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(
        [...routes].some((route) => route.startsWith(method)),
        method,
      ).toBe(true);
    }
    const text = readFileSync(FILE, 'utf8');
    expect(text).toContain('Authorization: Basic');
    expect(text).toContain('Authorization: Digest');
  });

  const run = async (example: Example) => {
    const response = await send(example);
    await response.text();
    expect(response.status).toBe(example.expect);
    if (example.handler) {
      runInNewContext(example.handler, {
        client: { global: { set: (name: string, value: string) => globals.set(name, value) } },
        response: { headers: { valueOf: (name: string) => response.headers.get(name) } },
      });
    }
  };

  it.each(examples.map((example) => [example.title, example] as const))('%s', async (_, example) => run(example));

  it('runs again on the same data with the same statuses: each run’s ISBNs and keys are its own', async () => {
    const first = globals.get('run');
    globals.clear();
    for (const example of examples) await run(example);
    expect(globals.get('run')).not.toBe(first);
  });
});
