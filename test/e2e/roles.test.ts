import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FIELDS } from '../../shared/books/book-schema';
import { type ApiResponse, digestAuthorization, type Scheme, sendRequest } from '../support/api-client';
import { createTestTables } from '../support/dynamodb';
import { type ServerProcess, startServerProcess } from '../support/server-process';
import { runTool } from '../support/tool-process';

/**
 * Roles end to end under `npm start` (local/main.ts in its own process, users and roles from
 * LOCAL_USERS and LOCAL_ROLES): every role with Basic and Digest on every book route, the 403's
 * body and headers, the access log's user and role, who created and changed a book, and the users
 * tool changing a role in the running service's database.
 */
const ORIGIN = 'https://app.example';
const READER = { username: 'rita', password: 'rita-pass' };
const EDITOR = { username: 'eddie', password: 'eddie-pass' };
const ADMIN = { username: 'ada', password: 'ada-pass' };
type User = typeof READER;

let tables: Awaited<ReturnType<typeof createTestTables>>;
let server: ServerProcess;
let open: ServerProcess;

beforeAll(async () => {
  tables = await createTestTables();
  const env = {
    LOCAL_USERS: [READER, EDITOR, ADMIN].map((u) => `${u.username}:${u.password}`).join(','),
    LOCAL_ROLES: 'rita=reader,eddie=editor,ada=admin',
    CORS_ALLOWED_ORIGINS: ORIGIN,
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
  [server, open] = await Promise.all([
    startServerProcess(tables.endpoint, tables.names, [], env),
    startServerProcess(tables.endpoint, tables.names, [], { ...env, PUBLIC_READS: 'true' }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.stop(), open?.stop()]);
});

/** One call as `user`: Basic up front, or Digest answering the challenge of a first, bare request. */
const call = async (
  user: User,
  scheme: Scheme,
  method: string,
  path: string,
  body?: unknown,
  baseUrl = server.baseUrl,
): Promise<ApiResponse> => {
  const headers = { origin: ORIGIN };
  if (scheme === 'basic') {
    const basic = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
    return sendRequest(baseUrl, method, path, body, { ...headers, authorization: basic });
  }
  const challenged = await sendRequest(baseUrl, method, path, body, headers);
  expect(challenged.status).toBe(401);
  const challenge = challenged.headers.get('www-authenticate') as string;
  return sendRequest(baseUrl, method, path, body, {
    ...headers,
    authorization: digestAuthorization(challenge, method, path, user),
  });
};

let isbns = 0;
const newBook = () => ({
  title: 'Roles',
  author: 'Ann Author',
  isbn: `roles-${process.pid}-${++isbns}`,
  publicationYear: 2001,
});

/** A book made by the admin, for a role's changes. */
const bookByAdmin = async () => {
  const created = await call(ADMIN, 'basic', 'POST', '/api/books', newBook());
  expect(created.status).toBe(201);
  return created.json.id as number;
};

const expectForbidden = (response: ApiResponse, scheme: Scheme, needed: string) => {
  expect(response.status).toBe(403);
  expect(response.json).toEqual({ timestamp: expect.any(String), status: 403, message: expect.any(String) });
  expect(new Date(response.json.timestamp).toISOString()).toBe(response.json.timestamp);
  expect(response.json.message).toContain(needed);
  expect(response.headers.get('www-authenticate')).toBeNull();
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  if (scheme === 'digest') expect(response.headers.get('authentication-info')).toMatch(/^nextnonce="/);
  else expect(response.headers.get('authentication-info')).toBeNull();
};

describe.each(['basic', 'digest'] as const)('roles under npm start, %s', (scheme) => {
  it('a reader reads (list, one book, HEAD) and gets 403 on POST, PUT, PATCH and DELETE', async () => {
    const id = await bookByAdmin();
    expect((await call(READER, scheme, 'GET', '/api/books')).status).toBe(200);
    expect((await call(READER, scheme, 'GET', `/api/books/${id}`)).status).toBe(200);
    expect((await call(READER, scheme, 'HEAD', `/api/books/${id}`)).status).toBe(200);
    expectForbidden(await call(READER, scheme, 'POST', '/api/books', newBook()), scheme, 'editor');
    expectForbidden(await call(READER, scheme, 'PUT', `/api/books/${id}`, newBook()), scheme, 'editor');
    expectForbidden(await call(READER, scheme, 'PATCH', `/api/books/${id}`, { title: 'No' }), scheme, 'editor');
    expectForbidden(await call(READER, scheme, 'DELETE', `/api/books/${id}`), scheme, 'admin');
    // Refused before the body is read: a body the route would refuse still gets the 403.
    expectForbidden(await call(READER, scheme, 'POST', '/api/books', '{not json'), scheme, 'editor');
    const after = await call(ADMIN, 'basic', 'GET', `/api/books/${id}`);
    expect(after.json.title).toBe('Roles'); // nothing the reader sent was written
  });

  it('an editor creates, replaces and patches, and gets 403 on DELETE', async () => {
    const created = await call(EDITOR, scheme, 'POST', '/api/books', newBook());
    expect(created.status).toBe(201);
    const path = `/api/books/${created.json.id}`;
    expect((await call(EDITOR, scheme, 'PUT', path, { ...newBook(), title: 'Put' })).status).toBe(200);
    expect((await call(EDITOR, scheme, 'PATCH', path, { title: 'Patched' })).status).toBe(200);
    expect((await call(EDITOR, scheme, 'GET', path)).json.title).toBe('Patched');
    expectForbidden(await call(EDITOR, scheme, 'DELETE', path), scheme, 'admin');
    expect((await call(EDITOR, scheme, 'GET', path)).status).toBe(200);
  });

  it('an admin does everything', async () => {
    const created = await call(ADMIN, scheme, 'POST', '/api/books', newBook());
    expect(created.status).toBe(201);
    const path = `/api/books/${created.json.id}`;
    expect((await call(ADMIN, scheme, 'PUT', path, newBook())).status).toBe(200);
    expect((await call(ADMIN, scheme, 'PATCH', path, { title: 'A' })).status).toBe(200);
    expect((await call(ADMIN, scheme, 'GET', '/api/books')).status).toBe(200);
    expect((await call(ADMIN, scheme, 'DELETE', path)).status).toBe(204);
  });

  it('a wrong password stays 401 with the challenge, whatever the role', async () => {
    for (const user of [READER, EDITOR]) {
      const wrong = await call({ ...user, password: 'wrong' }, scheme, 'GET', '/api/books');
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('Digest');
    }
  });
});

describe('roles beyond the statuses', () => {
  it('the served OpenAPI document gives each book operation its role, and 403 exactly where the API answers it', async () => {
    const document = (await sendRequest(server.baseUrl, 'GET', '/api/openapi.json')).json;
    const described = (path: string, method: string) => document.paths[path][method];
    for (const [path, method, role] of [
      ['/api/books', 'get', 'reader'],
      ['/api/books/{id}', 'get', 'reader'],
      ['/api/books', 'post', 'editor'],
      ['/api/books/{id}', 'put', 'editor'],
      ['/api/books/{id}', 'patch', 'editor'],
      ['/api/books/{id}', 'delete', 'admin'],
    ] as const) {
      expect(described(path, method)['x-required-role'], `${method} ${path}`).toBe(role);
      expect('403' in described(path, method).responses, `${method} ${path}`).toBe(role !== 'reader');
    }
  });

  it('with PUBLIC_READS the reads need no credentials and a reader still gets 403 on writes', async () => {
    expect((await sendRequest(open.baseUrl, 'GET', '/api/books')).status).toBe(200);
    expect((await call(READER, 'basic', 'GET', '/api/books', undefined, open.baseUrl)).status).toBe(200);
    expectForbidden(await call(READER, 'basic', 'POST', '/api/books', newBook(), open.baseUrl), 'basic', 'editor');
    expect((await call(EDITOR, 'basic', 'POST', '/api/books', newBook(), open.baseUrl)).status).toBe(201);
  });

  it('the access log names the user and the role of each request', async () => {
    await call(READER, 'basic', 'POST', '/api/books', newBook());
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((line) => line.message === 'Request');
    expect(lines).toContainEqual(
      expect.objectContaining({ route: 'CreateBook', status: 403, user: 'rita', role: 'reader' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ route: 'CreateBook', status: 201, user: 'eddie', role: 'editor' }),
    );
  });

  it('the stored book keeps who created it and who changed it last; the API’s Book does not show them', async () => {
    const created = await call(EDITOR, 'basic', 'POST', '/api/books', newBook());
    const id = created.json.id as number;
    const stored = async () => {
      const { Items = [] } = await tables.documentClient.send(
        new ScanCommand({
          TableName: tables.names.books,
          FilterExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': id },
        }),
      );
      expect(Items).toHaveLength(1);
      return Items[0] as Record<string, unknown>;
    };
    expect(await stored()).toMatchObject({ createdBy: 'eddie', updatedBy: 'eddie' });
    expect((await call(ADMIN, 'digest', 'PATCH', `/api/books/${id}`, { title: 'Changed' })).status).toBe(200);
    expect(await stored()).toMatchObject({ createdBy: 'eddie', updatedBy: 'ada' });
    expect((await call(EDITOR, 'basic', 'PUT', `/api/books/${id}`, newBook())).status).toBe(200);
    expect(await stored()).toMatchObject({ createdBy: 'eddie', updatedBy: 'eddie' });
    const read = await call(READER, 'basic', 'GET', `/api/books/${id}`);
    // Only Book fields (an optional one may be absent): who wrote the book stays on the stored record.
    const onlyBookFields = (book: object) => expect(BOOK_FIELDS).toEqual(expect.arrayContaining(Object.keys(book)));
    onlyBookFields(read.json);
    expect(read.json).not.toHaveProperty('updatedBy');
    const listed = await call(READER, 'basic', 'GET', '/api/books');
    for (const book of listed.json) onlyBookFields(book);
  });

  it('`users` adds a reader, changes a role in the running service’s database, and lists roles', async () => {
    const users = (...args: string[]) =>
      runTool(
        'users',
        [...args, '--endpoint', tables.endpoint, '--table', tables.names.auth],
        'violet kettle harbour dawn',
      );
    const added = await users('add', 'ivy', '--role', 'reader');
    expect(added.code, added.stderr).toBe(0);
    const ivy = { username: 'ivy', password: 'violet kettle harbour dawn' };
    expect((await call(ivy, 'digest', 'GET', '/api/books')).status).toBe(200);
    expectForbidden(await call(ivy, 'digest', 'POST', '/api/books', newBook()), 'digest', 'editor');

    const promoted = await users('role', 'ivy', 'editor');
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('"ivy" now has the role editor');
    expect((await call(ivy, 'digest', 'POST', '/api/books', newBook())).status).toBe(201); // same password

    const listed = await users('list');
    expect(listed.stdout).toMatch(/^ivy\tbooks\teditor$/m);
    expect(listed.stdout).toMatch(/^rita\tbooks\treader$/m);
    expect(listed.stdout).toMatch(/^ada\tbooks\tadmin$/m);

    const unknown = await users('role', 'ivy', 'owner');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown role "owner": a role is reader, editor or admin');
    const badAdd = await users('add', 'ivo', '--role', 'superuser');
    expect(badAdd.code).not.toBe(0);
    expect(badAdd.stderr).toContain('a role is reader, editor or admin');
    // No silent admin: add without --role makes nobody.
    const noRole = await users('add', 'ivo');
    expect(noRole.code).toBe(2);
    expect(noRole.stderr).toContain('"add" needs --role (reader, editor or admin): no role is given by default');
    expect((await users('list')).stdout).not.toMatch(/^ivo\t/m);
    const nobody = await users('role', 'nobody', 'reader');
    expect(nobody.code).toBe(1);
    expect(nobody.stdout).toContain('No user "nobody"');
  }, 120_000); // eight runs of tools/users.ts, each a Node start
});
