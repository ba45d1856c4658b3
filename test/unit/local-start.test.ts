import { describe, expect, it } from 'vitest';
import { LocalStartError, parseLocalOptions, startNotices } from '../../local/options';
import { readyReport } from '../../local/start';

describe('npm start, step by step', () => {
  it('asks for the help text with --help or -h', () => {
    expect(parseLocalOptions(['--help'], {})).toBeUndefined();
    expect(parseLocalOptions(['-h'], {})).toBeUndefined();
  });

  it('runs with the documented defaults when nothing is set', () => {
    const options = parseLocalOptions([], {});
    expect(options).toMatchObject({
      port: 3000,
      dataDir: '.data',
      dynamodbEndpoint: undefined,
      dynamodbPort: undefined,
      dynamodbHost: undefined,
      tables: { books: 'books', auth: 'auth' },
      realm: 'books',
      publicReads: false,
      users: [{ username: 'demo', password: 'demo', role: 'admin' }],
    });
    expect(options?.nonceSecret).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(options?.functionEnvironment).toEqual({
      BOOKS_TABLE_NAME: 'books',
      AUTH_TABLE_NAME: 'auth',
      AUTH_REALM: 'books',
      NONCE_SECRET: options?.nonceSecret,
      PUBLIC_READS: 'false',
      DIGEST_ALGORITHM: 'MD5',
      AUTH_FAILURE_LIMIT: '100',
      AUTH_LOCKOUT_AFTER: '5',
      AUTH_LOCKOUT_SECONDS: '60',
      AUTH_LOCKOUT_MAX_SECONDS: '900',
      BASIC_CHALLENGE: 'last',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
  });

  it('takes every option from the environment, and hands the handlers theirs', () => {
    const options = parseLocalOptions([], {
      PORT: '8080',
      DATA_DIR: '/tmp/books',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      DYNAMODB_PORT: '8001',
      DYNAMODB_HOST: '172.17.0.1',
      BOOKS_TABLE_NAME: 'b',
      AUTH_TABLE_NAME: 'a',
      AUTH_REALM: 'staff',
      PUBLIC_READS: 'true',
      NONCE_SECRET: 'k',
      DIGEST_ALGORITHM: 'SHA-256',
      BASIC_CHALLENGE: 'none',
      LOCAL_USERS: 'ann:x:y,bob:z',
      LOCAL_ROLES: 'ann=reader',
      AUTH_FAILURE_LIMIT: '20',
      AUTH_LOCKOUT_AFTER: '3',
      AUTH_LOCKOUT_SECONDS: '30',
      AUTH_LOCKOUT_MAX_SECONDS: '600',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_DISABLED: 'false',
    });
    expect(options).toMatchObject({
      port: 8080,
      dataDir: '/tmp/books',
      dynamodbEndpoint: 'http://127.0.0.1:8000',
      dynamodbPort: 8001,
      dynamodbHost: '172.17.0.1',
      tables: { books: 'b', auth: 'a' },
      realm: 'staff',
      publicReads: true,
      nonceSecret: 'k',
      users: [
        { username: 'ann', password: 'x:y', role: 'reader' },
        { username: 'bob', password: 'z', role: 'reader' }, // not named by LOCAL_ROLES: the least
      ],
      functionEnvironment: {
        BOOKS_TABLE_NAME: 'b',
        AUTH_TABLE_NAME: 'a',
        AUTH_REALM: 'staff',
        NONCE_SECRET: 'k',
        PUBLIC_READS: 'true',
        DIGEST_ALGORITHM: 'SHA-256',
        AUTH_FAILURE_LIMIT: '20',
        AUTH_LOCKOUT_AFTER: '3',
        AUTH_LOCKOUT_SECONDS: '30',
        AUTH_LOCKOUT_MAX_SECONDS: '600',
        BASIC_CHALLENGE: 'none',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_DISABLED: 'false',
      },
    });
  });

  it.each([
    [{ PORT: 'http' }, 'PORT must be a port number, got "http"'],
    [{ PORT: '65536' }, 'PORT must be a port number, got "65536"'],
    [{ DYNAMODB_PORT: '0' }, 'DYNAMODB_PORT must be a port number, got "0"'],
    [{ DYNAMODB_HOST: 'localhost' }, 'DYNAMODB_HOST must be an IP address of this machine, got "localhost"'],
    [{ LOCAL_USERS: 'nobody' }, 'LOCAL_USERS entry "nobody" is not name:password'],
    [{ DIGEST_ALGORITHM: 'SHA-1' }, 'DIGEST_ALGORITHM "SHA-1" is not valid'],
    [{ PUBLIC_READS: 'yes' }, 'PUBLIC_READS "yes" is not valid'],
    [{ AUTH_LOCKOUT_AFTER: '0' }, 'AUTH_LOCKOUT_AFTER "0" is not valid: expected a positive whole number'],
    [
      { AUTH_LOCKOUT_SECONDS: '600', AUTH_LOCKOUT_MAX_SECONDS: '60' },
      'AUTH_LOCKOUT_MAX_SECONDS must be at least AUTH_LOCKOUT_SECONDS',
    ],
    [{ LIST_MAX_BOOKS: '-1' }, 'LIST_MAX_BOOKS "-1" is not valid: expected a positive whole number'],
    [{ NONCE_LIFETIME_SECONDS: 'abc' }, 'NONCE_LIFETIME_SECONDS "abc" is not valid: expected a positive whole number'],
    [{ CORS_ALLOWED_ORIGINS: 'https://a.example/' }, 'CORS_ALLOWED_ORIGINS "https://a.example/" is not valid'],
    [{ REQUIRE_IF_MATCH: 'yes' }, 'REQUIRE_IF_MATCH "yes" is not valid'],
    [{ POWERTOOLS_LOG_LEVEL: 'LOUD' }, 'POWERTOOLS_LOG_LEVEL "LOUD" is not valid: expected TRACE, DEBUG, INFO'],
    [{ POWERTOOLS_METRICS_DISABLED: 'maybe' }, 'POWERTOOLS_METRICS_DISABLED "maybe" is not valid'],
    [{ LOCAL_USERS: 'demo:' }, 'LOCAL_USERS entry for "demo" has an empty password'],
    [{ LOCAL_USERS: 'demo:demo;ann:x' }, 'separate pairs with commas'],
    [
      { LOCAL_ROLES: 'demo=owner' },
      'LOCAL_ROLES entry for "demo": unknown role "owner": a role is reader, editor or admin',
    ],
    [{ LOCAL_ROLES: 'ann=reader' }, 'LOCAL_ROLES entry "ann=reader" is not name=role for a user of LOCAL_USERS'],
    [{ LOCAL_ROLES: 'demo:reader' }, 'LOCAL_ROLES entry "demo:reader" is not name=role'],
    [{ LOCAL_ROLES: 'demo=reader,demo=admin' }, 'LOCAL_ROLES names "demo" twice'],
    [{ LOCAL_ROLES: 'demo=Reader' }, 'unknown role "Reader"'],
    [{ LOCAL_EVENTS_URL: 'localhost:4000' }, 'LOCAL_EVENTS_URL "localhost:4000" is not valid: expected an http(s) URL'],
    [{ LOCAL_EVENTS_URL: 'ftp://127.0.0.1/' }, 'LOCAL_EVENTS_URL "ftp://127.0.0.1/" is not valid'],
    [{ LOCAL_EVENTS_ATTEMPTS: '0' }, 'LOCAL_EVENTS_ATTEMPTS "0" is not valid: expected a positive whole number'],
    [{ LOCAL_EVENTS_FIRST_RETRY_MS: 'soon' }, 'LOCAL_EVENTS_FIRST_RETRY_MS "soon" is not valid'],
    [{ AUTH_REALM: 'my "books"' }, 'AUTH_REALM "my "books"" is not valid: expected printable ASCII without quotes'],
    [
      { AUTH_REALM: 'r'.repeat(65) },
      'is not valid: expected printable ASCII without quotes or backslashes (at most 64',
    ],
  ])('refuses %o before starting anything', (env, message) => {
    expect(() => parseLocalOptions([], env)).toThrow(LocalStartError);
    expect(() => parseLocalOptions([], env)).toThrow(message);
  });

  it('delivers change events only when LOCAL_EVENTS_URL is set, with the retry budget given or the defaults', () => {
    expect(parseLocalOptions([], {})?.events).toBeUndefined();
    expect(parseLocalOptions([], { LOCAL_EVENTS_URL: 'http://127.0.0.1:4000/events' })?.events).toEqual({
      url: 'http://127.0.0.1:4000/events',
      attempts: 8,
      firstBackoffMs: 200,
    });
    const budget = {
      LOCAL_EVENTS_URL: 'https://hooks.example/e',
      LOCAL_EVENTS_ATTEMPTS: '2',
      LOCAL_EVENTS_FIRST_RETRY_MS: '5',
    };
    expect(parseLocalOptions([], budget)?.events).toMatchObject({ attempts: 2, firstBackoffMs: 5 });
  });

  it("takes Powertools' log levels and flags in any case, as Powertools does", () => {
    const options = parseLocalOptions([], { POWERTOOLS_LOG_LEVEL: 'debug', POWERTOOLS_METRICS_DISABLED: 'FALSE' });
    expect(options?.functionEnvironment).toMatchObject({
      POWERTOOLS_LOG_LEVEL: 'debug',
      POWERTOOLS_METRICS_DISABLED: 'FALSE',
    });
  });

  it('gives each user of LOCAL_ROLES its role, the others reader, whatever the spaces', () => {
    const options = parseLocalOptions([], {
      LOCAL_USERS: 'a:1,b:2,c:3,d:4',
      LOCAL_ROLES: ' a=reader , b=editor,c=admin,',
    });
    expect(options?.users.map(({ username, role }) => `${username}=${role}`)).toEqual([
      'a=reader',
      'b=editor',
      'c=admin',
      'd=reader',
    ]);
    expect(options && startNotices(options)).toEqual([]);
  });

  it('keeps LOCAL_USERS admins without LOCAL_ROLES, for local development, and says so first', () => {
    const options = parseLocalOptions([], { LOCAL_USERS: 'a:1,b:2' });
    expect(options?.users.map(({ username, role }) => `${username}=${role}`)).toEqual(['a=admin', 'b=admin']);
    expect(options && startNotices(options)).toEqual([
      'Note: LOCAL_ROLES is not set, so every LOCAL_USERS user (a, b) is an admin: fine for local development; set LOCAL_ROLES=name=role,... to give them less.',
    ]);
  });

  it('reports where it listens, the realm, the users by name with their roles and who may read', () => {
    const options = parseLocalOptions([], {
      LOCAL_USERS: 'demo:demo,ann:secret',
      LOCAL_ROLES: 'ann=editor',
      PORT: '3001',
    });
    expect(options && readyReport(options)).toEqual([
      'Book Library API listening on http://127.0.0.1:3001/api/books',
      'API reference: http://127.0.0.1:3001/api/docs',
      'Realm "books", users: demo:demo (reader), ann (editor)',
      'Every /api/books route needs credentials (Basic or Digest).',
    ]);
    const open = parseLocalOptions([], { PUBLIC_READS: 'true', LOCAL_USERS: '' });
    expect(open && readyReport(open)).toEqual([
      'Book Library API listening on http://127.0.0.1:3000/api/books',
      'API reference: http://127.0.0.1:3000/api/docs',
      'Realm "books", users: none',
      'GET routes are public; writes need credentials.',
    ]);
  });
});

describe('LOCAL_STAGE', () => {
  it('is a stage name every path then starts with, or none', () => {
    expect(parseLocalOptions([], {})?.stage).toBe(undefined);
    expect(parseLocalOptions([], { LOCAL_STAGE: 'prod' })?.stage).toBe('prod');
    for (const value of ['/prod', 'a b', 'prod/v1']) {
      expect(() => parseLocalOptions([], { LOCAL_STAGE: value }), value).toThrow(/LOCAL_STAGE/);
    }
  });
});
