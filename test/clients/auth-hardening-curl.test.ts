import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { requireTools } from './required-tools';

/**
 * The parts of test/e2e/auth-hardening.test.ts that need curl: its Digest over request targets that
 * other clients get wrong, and its UTF-8 credentials, through the local server on Dynoxide.
 */
const run = promisify(execFile);
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  requireTools('npm run test:clients', ['curl']);
  api = await startLocalApi();
  await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
    ...userRecord('jörg', 'pässwörd', 'books'),
    role: 'admin',
  });
});
afterAll(() => api.close());

const curlStatus = async (...args: string[]) => {
  const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...args]);
  return Number(stdout);
};

describe('Digest binds the whole request target', () => {
  it.each(['/api/books?author=a=b', '/api/books?author=what?junk=1', '/api/books?author=J%C3%B6rg&year=1999'])(
    'curl --digest gets 200 for %s',
    async (path) => {
      expect(await curlStatus('--digest', '-u', 'demo:demo', `${api.baseUrl}${path}`)).toBe(200);
    },
  );

  it('an escaped path works with Digest as with Basic', async () => {
    const created = await fetch(`${api.baseUrl}/api/books`, {
      method: 'POST',
      headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'T', author: 'A', isbn: `esc-${process.pid}`, publicationYear: 2001 }),
    });
    const { id } = (await created.json()) as { id: number };
    const escaped = `/api/books/${[...String(id)].map((digit) => `%3${digit}`).join('')}`;
    expect(await curlStatus('-u', 'demo:demo', `${api.baseUrl}${escaped}`)).toBe(200);
    expect(await curlStatus('--digest', '-u', 'demo:demo', `${api.baseUrl}${escaped}`)).toBe(200);
  });
});

describe('UTF-8 users and the algorithms offered', () => {
  it.each([['--digest'], ['--anyauth'], ['--basic']])('curl %s -u jörg:pässwörd gets 200', async (option) => {
    expect(await curlStatus(option, '-u', 'jörg:pässwörd', `${api.baseUrl}/api/books`)).toBe(200);
  });
});
