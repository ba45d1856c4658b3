import { randomBytes } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandOutput,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { userRecord } from '../ops/user-records';
import { NONCE_KEY_NAME } from '../shared/auth/nonce';
import { requestFingerprint } from '../shared/books/idempotency';
import { normalizeAuthor } from '../shared/books/normalize';
import type { Book } from '../shared/books/types';
import { accountKey } from '../shared/store/auth/account-items';
import { DynamoSecretStore } from '../shared/store/auth/dynamodb-secret-store';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import {
  AUTHOR_SHARDS,
  authorShardKey,
  BY_AUTHOR_INDEX,
  bookKey,
  bookPartition,
  isbnClaimKey,
  shards,
  toBookItem,
} from '../shared/store/books/book-items';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { IdBlockAllocator } from '../shared/store/books/id-blocks';
import { digestAuthorization as answerChallenge } from '../tools/http-auth/digest';
import { type ApiRequest, authorizerEvent, BENCH_PRINCIPAL, proxyEvent } from './events';

/** What a scenario's invocations run against. */
export interface BenchTables {
  /** Talks straight to DynamoDB (fixtures and the raw SDK calls). */
  client: DynamoDBDocumentClient;
  books: string;
  auth: string;
}

/**
 * One kind of request to one function: its event, the status it must answer with, and the raw SDK
 * calls the function makes for it (the same commands, sent directly), for the latency ratio.
 */
export interface Scenario {
  /** The stack function that serves it. */
  function: string;
  label: string;
  expectedStatus: number;
  /** Makes fixtures for `count` handler requests and `count` raw calls. */
  prepare(count: number): Promise<void>;
  event(i: number): unknown;
  raw(i: number): Promise<unknown>;
  /** Why its number of DynamoDB calls is the least that keeps its guarantees. */
  why: string;
}

export const BENCH_USER = { username: 'bench', password: 'bench-password', realm: 'books' };
const MATCH_AUTHOR = 'Bench Match';

const bookInput = (tag: string, i: number) => ({
  title: `Bench book ${tag} ${i}`,
  author: i % 10 === 0 ? MATCH_AUTHOR : `Author ${i % 97}`,
  isbn: `bench-${tag}-${i}`,
  publicationYear: 1900 + (i % 100),
});

const range = (count: number) => Array.from({ length: count }, (_, i) => i);

/** Creates books through the store, a few at a time. */
const createBooks = async (store: DynamoBookStore, tag: string, count: number): Promise<Book[]> => {
  const books: Book[] = [];
  for (let start = 0; start < count; start += 25) {
    const now = new Date().toISOString();
    books.push(
      ...(await Promise.all(
        range(Math.min(25, count - start)).map((i) =>
          store.create({ ...bookInput(tag, start + i), createdAt: now, updatedAt: now }).then(({ book }) => book),
        ),
      )),
    );
  }
  return books;
};

const bookRequest = (method: string, id: number, body?: unknown): ApiRequest => ({
  method,
  path: `/api/books/${id}`,
  ...(body !== undefined && { body }),
});

const claimKey = isbnClaimKey;

/**
 * What the scenarios share: the tables, the store that makes their fixtures, the pool of existing
 * books that reads and updates use, and the raw SDK calls more than one scenario makes.
 */
export interface BenchFixtures extends BenchTables {
  store: DynamoBookStore;
  /** Creates the pool of 200 books once. */
  ensurePool(): Promise<void>;
  /** The pool's book for request `i`. */
  pick(i: number): Book;
  /** A strongly consistent GetItem of a book. */
  getItem(id: number): Promise<GetCommandOutput>;
  /** One conditional UpdateItem returning the new item: what PUT and PATCH do when the ISBN is kept. */
  rawReplace(id: number, title: string): Promise<unknown>;
}

export const benchFixtures = (tables: BenchTables): BenchFixtures => {
  const { client, books: table } = tables;
  const store = new DynamoBookStore(client, table);
  let pool: Book[] = [];
  const getItem = (id: number) =>
    client.send(new GetCommand({ TableName: table, Key: bookKey(id), ConsistentRead: true }));
  return {
    ...tables,
    store,
    ensurePool: async () => {
      if (pool.length === 0) pool = await createBooks(store, 'pool', 200);
    },
    pick: (i) => pool[i % pool.length] as Book,
    getItem,
    rawReplace: (id, title) =>
      client.send(
        new UpdateCommand({
          TableName: table,
          Key: bookKey(id),
          UpdateExpression: 'SET #title = :title, #updatedAt = :updatedAt ADD version :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#title': 'title', '#updatedAt': 'updatedAt' },
          ExpressionAttributeValues: { ':title': title, ':updatedAt': new Date().toISOString(), ':one': 1 },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
  };
};

export const getBookScenario = ({ ensurePool, pick, getItem }: BenchFixtures): Scenario => ({
  function: 'GetBook',
  label: 'GET /api/books/{id}',
  expectedStatus: 200,
  prepare: ensurePool,
  event: (i) => proxyEvent(bookRequest('GET', pick(i).id)),
  raw: (i) => getItem(pick(i).id),
  why: 'one strongly consistent GetItem: the book is one item',
});

const listScenarios = ({ client, books: table, ensurePool }: BenchFixtures): Scenario[] => [
  {
    function: 'ListBooks',
    label: `GET /api/books?author= (${'20'} matches)`,
    expectedStatus: 200,
    prepare: ensurePool,
    event: () => proxyEvent({ method: 'GET', path: '/api/books', query: { author: 'bench match' } }),
    raw: () =>
      Promise.all(
        shards(AUTHOR_SHARDS).map((shard) =>
          client.send(
            new QueryCommand({
              TableName: table,
              IndexName: BY_AUTHOR_INDEX,
              KeyConditionExpression: 'authorShard = :author',
              ExpressionAttributeValues: { ':author': authorShardKey(normalizeAuthor(MATCH_AUTHOR), shard) },
            }),
          ),
        ),
      ),
    why: `one Query per author index key (${AUTHOR_SHARDS}, in parallel), merged by id: it reads the matches and nothing else`,
  },
  {
    function: 'ListBooks',
    label: 'GET /api/books?limit=20 (one page)',
    expectedStatus: 200,
    prepare: ensurePool,
    event: () => proxyEvent({ method: 'GET', path: '/api/books', query: { limit: '20' } }),
    raw: () =>
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': bookPartition(0) },
          ConsistentRead: true,
          Limit: 21,
        }),
      ),
    why: 'one strongly consistent Query of the first id range (a second only at a range boundary)',
  },
];

/** Creates without a key, with one, and retried with one; each is metered over 100 creates. */
const createBookScenarios = ({ client, books: table, store }: BenchFixtures): Scenario[] => {
  const ids = new IdBlockAllocator(client, table);
  /** The create's transaction, sent directly: the book and its claim, and with a key the key's record. */
  const rawCreate = async (input: ReturnType<typeof bookInput>, keyed: boolean) => {
    const id = await ids.allocate();
    const now = new Date().toISOString();
    const item = toBookItem({ ...input, id, createdAt: now, updatedAt: now }, 1);
    const record = { pk: `IDEMPOTENCY#raw-${id}`, sk: 0, bookId: id, fingerprint: 'f', book: item, version: 1 };
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Put: {
              TableName: table,
              Item: { ...claimKey(item.isbn), bookId: id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...(keyed
            ? [{ Put: { TableName: table, Item: record, ConditionExpression: 'attribute_not_exists(pk)' } }]
            : []),
        ],
      }),
    );
  };
  const keyed = (tag: string, prefix: string, i: number) =>
    proxyEvent({
      method: 'POST',
      path: '/api/books',
      headers: { 'Idempotency-Key': `"${prefix}-${i}"` },
      body: bookInput(tag, i),
    });
  return [
    {
      function: 'CreateBook',
      label: 'POST /api/books',
      expectedStatus: 201,
      prepare: async () => {},
      event: (i) => proxyEvent({ method: 'POST', path: '/api/books', body: bookInput('create', i) }),
      raw: (i) => rawCreate(bookInput('raw-create', i), false),
      why: 'one transaction writing the book and its ISBN claim (the claim must be atomic with the book); the id comes from the container’s reserved block (2 ids, growing to a range of 64 while busy), one UpdateItem per block',
    },
    {
      function: 'CreateBook',
      label: 'POST /api/books with Idempotency-Key',
      expectedStatus: 201,
      prepare: async () => {},
      event: (i) => keyed('keyed', 'bench-key', i),
      raw: (i) => rawCreate(bookInput('raw-keyed', i), true),
      why: 'the same transaction with a third item, the key’s record, so no book exists without it (averaged over 100 creates)',
    },
    {
      function: 'CreateBook',
      label: 'POST /api/books with Idempotency-Key, retried',
      expectedStatus: 201,
      prepare: async (count) => {
        const now = new Date().toISOString();
        for (const i of range(count)) {
          const input = bookInput('retried', i);
          await store.create(
            { ...input, createdAt: now, updatedAt: now },
            { owner: BENCH_PRINCIPAL, key: `bench-retry-${i}`, fingerprint: requestFingerprint(input) },
          );
        }
      },
      event: (i) => keyed('retried', 'bench-retry', i),
      raw: (i) => rawCreate(bookInput('raw-retried', i), true),
      why: 'the cancelled transaction itself returns the key’s record (ReturnValuesOnConditionCheckFailure), so the replay needs no read (averaged over 100 creates)',
    },
  ];
};

const updateScenarios = ({ ensurePool, pick, rawReplace }: BenchFixtures): Scenario[] => [
  {
    function: 'ReplaceBook',
    label: 'PUT /api/books/{id} (ISBN kept)',
    expectedStatus: 200,
    prepare: ensurePool,
    event: (i) => {
      const book = pick(i);
      return proxyEvent(bookRequest('PUT', book.id, { ...bookInput('pool', 0), isbn: book.isbn, title: `v${i}` }));
    },
    raw: (i) => rawReplace(pick(i).id, `raw ${i}`),
    why: 'one conditional UpdateItem (book exists, ISBN kept, If-Match) returning the new item; a failed condition returns the old one, which tells 404 from 412 from a moving ISBN; only a moving ISBN adds a transaction (3 items)',
  },
  {
    function: 'ReplaceBook',
    label: 'PUT /api/books/{id} (ISBN kept, If-Match: *)',
    expectedStatus: 200,
    prepare: ensurePool,
    event: (i) => {
      const book = pick(i);
      return proxyEvent({
        ...bookRequest('PUT', book.id, { ...bookInput('pool', 0), isbn: book.isbn, title: `m${i}` }),
        headers: { 'If-Match': '*' },
      });
    },
    raw: (i) => rawReplace(pick(i).id, `raw matched ${i}`),
    why: 'the same UpdateItem: If-Match is part of its condition, so a conditional write costs no read',
  },
  {
    function: 'PatchBook',
    label: 'PATCH /api/books/{id} {title}',
    expectedStatus: 200,
    prepare: ensurePool,
    event: (i) => proxyEvent(bookRequest('PATCH', pick(i).id, { title: `patched ${i}` })),
    raw: (i) => rawReplace(pick(i).id, `raw patched ${i}`),
    why: 'as PUT: the UpdateItem sets only the supplied fields, so the unchanged ones need no read',
  },
];

/** Deletes books made for it: the handler's requests the first half, the raw calls the second. */
export const deleteBookScenario = ({ client, books: table, store, getItem }: BenchFixtures): Scenario => {
  let doomed: Book[] = [];
  return {
    function: 'DeleteBook',
    label: 'DELETE /api/books/{id}',
    expectedStatus: 204,
    prepare: async (count) => {
      doomed = await createBooks(store, 'doomed', count * 2);
    },
    event: (i) => proxyEvent(bookRequest('DELETE', (doomed[i] as Book).id)),
    raw: async (i) => {
      const book = doomed[doomed.length / 2 + i] as Book;
      const { Item } = await getItem(book.id);
      if (!Item) throw new Error(`raw delete: book ${book.id} missing`);
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: table,
                Key: bookKey(book.id),
                ConditionExpression: 'version = :version',
                ExpressionAttributeValues: { ':version': Item.version },
              },
            },
            {
              Delete: {
                TableName: table,
                Key: claimKey(book.isbn),
                ConditionExpression: 'bookId = :id',
                ExpressionAttributeValues: { ':id': book.id },
              },
            },
          ],
        }),
      );
    },
    why: 'GetItem (which ISBN claim to release, and the version), then one transaction deleting the book and its claim',
  };
};

export const basicAuthorizerScenario = ({ client, auth }: BenchFixtures): Scenario => ({
  function: 'Authorizer',
  label: 'Basic credentials',
  expectedStatus: 0,
  prepare: async () => {
    const { username, password, realm } = BENCH_USER;
    await new DynamoUserStore(client, auth).put({ ...userRecord(username, password, realm), role: 'admin' });
    // As in a deployment that has served before: the nonce key exists, containers only read it.
    await new DynamoSecretStore(client, auth).getOrCreate(NONCE_KEY_NAME, () => randomBytes(32).toString('base64'));
  },
  event: () =>
    authorizerEvent({
      method: 'GET',
      path: '/api/books',
      headers: {
        Authorization: `Basic ${Buffer.from(`${BENCH_USER.username}:${BENCH_USER.password}`).toString('base64')}`,
      },
    }),
  raw: () => client.send(new GetCommand({ TableName: auth, Key: accountKey(BENCH_USER.username) })),
  why: 'one GetItem for the user record, then the UpdateItem that admits a person’s address (a machine credential writes nothing); Basic needs no nonce',
});

/** Every scenario the bench measures, in the order of its tables. */
export const scenarios = (tables: BenchTables): Scenario[] => {
  const fixtures = benchFixtures(tables);
  return [
    getBookScenario(fixtures),
    ...listScenarios(fixtures),
    ...createBookScenarios(fixtures),
    ...updateScenarios(fixtures),
    deleteBookScenario(fixtures),
    basicAuthorizerScenario(fixtures),
  ];
};

/** A Digest `Authorization` answering `challenge` for GET `path`, from the client outside the service. */
export const digestAuthorization = (challenge: string, path: string): string => {
  const authorization = answerChallenge(challenge, BENCH_USER, 'GET', path);
  if (!authorization) throw new Error(`No Digest challenge the bench can answer: ${challenge}`);
  return authorization;
};
