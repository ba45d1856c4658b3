import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { MAX_BOOK_ID } from '../shared/books/limits';
import { normalizeIsbn } from '../shared/books/normalize';
import type { Book } from '../shared/books/types';
import {
  BOOK_PARTITION_PREFIX,
  BOOK_RANGE_SIZE,
  bookRangeOf,
  ID_BLOCKS_KEY,
  IDEMPOTENCY_RECORD_PREFIX,
  ISBN_CLAIM_PREFIX,
  isRangeMark,
  rangeMarkKey,
  toBookItem,
} from '../shared/store/books/book-items';
import { MIGRATE_COMMAND, SCHEMA_VERSION, schemaVersionOf } from '../shared/store/books/schema-version';

/**
 * The invariants the DynamoDB book store keeps, checked over a whole books table. The store's
 * transactions are what keep them; this is how tests (and operators) prove they held.
 */
type ViolationKind =
  | 'missing-claim'
  | 'foreign-claim'
  | 'orphan-claim'
  | 'duplicate-isbn'
  | 'stale-isbn-key'
  | 'stale-index-key'
  | 'id-mismatch'
  | 'wrong-shard'
  | 'id-above-high-mark'
  | 'missing-id-blocks'
  | 'schema-behind'
  | 'orphan-key-record'
  | 'missing-key-record'
  | 'malformed-item'
  | 'missing-range-mark'
  | 'stray-range-mark';

interface Violation {
  kind: ViolationKind;
  message: string;
}

export interface TableReport {
  books: number;
  claims: number;
  /** Idempotency-Key records still live (not yet expired). */
  keyRecords: number;
  /** The highest id any container has reserved (0 when none has yet); issued ids are at most this. */
  lastId: number;
  violations: Violation[];
}

type Item = Record<string, unknown>;

const MISSING_MARKS_NAMED = 10;

const isValidId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_BOOK_ID;

/**
 * Every violation in a table's items:
 * - each book's normalised ISBN is claimed by exactly one claim item, and that claim points back to it;
 * - no two books share a normalised ISBN;
 * - no claim item exists without the book it points to (or whose ISBN no longer matches);
 * - every book's id equals its sort key, sits under its id range's partition key, is unique, and is no
 *   higher than the highest id reserved in blocks; its index keys are the ones its author, year and
 *   id give;
 * - every id range below the high mark's has its end mark and no other range has one (the list
 *   ends where a range has none);
 * - the table's schemaVersion is not behind this version's;
 * - an Idempotency-Key record that has not expired names a book that names it back, and a book
 *   whose key has not expired has that record. Expired ones are left out: DynamoDB's TTL deletes
 *   them lazily, and the store treats them as gone (`now`, epoch milliseconds, says when that is).
 */
export const findViolations = (items: readonly Item[], now = Date.now()): TableReport => {
  const violations: Violation[] = [];
  const report = (kind: ViolationKind, message: string) => violations.push({ kind, message });
  const books = new Map<number, Item>();
  const claims = new Map<string, Item>();
  const keyRecords = new Map<string, Item>();
  const nowSeconds = Math.floor(now / 1000);
  const live = (expiresAt: unknown) => typeof expiresAt === 'number' && expiresAt > nowSeconds;
  let idBlocks: Item | undefined;
  const marks = new Set<number>();

  for (const item of items) {
    const { pk, sk } = item;
    if (typeof pk === 'string' && pk.startsWith(BOOK_PARTITION_PREFIX) && isRangeMark(item)) {
      const range = Number(pk.slice(BOOK_PARTITION_PREFIX.length));
      if (Number.isSafeInteger(range) && rangeMarkKey(range).sk === sk) marks.add(range);
      else report('malformed-item', `End mark pk=${pk} sk=${String(sk)} is not at its range's end`);
    } else if (typeof pk === 'string' && pk.startsWith(BOOK_PARTITION_PREFIX)) {
      if (!isValidId(sk) || item.id !== sk) {
        report('id-mismatch', `Book item with sk ${String(sk)} has id ${String(item.id)}`);
        continue;
      }
      if (typeof item.isbn !== 'string' || typeof item.author !== 'string') {
        report('malformed-item', `Book ${sk} has no ISBN or author`);
        continue;
      }
      const expected = toBookItem({ ...(item as unknown as Book), id: sk }, 1);
      if (pk !== expected.pk) report('wrong-shard', `Book ${sk} is under ${pk}, not ${expected.pk}`);
      const indexKeys = ['authorKey', 'authorShard', 'yearShard', 'yearId'] as const;
      if (indexKeys.some((name) => item[name] !== expected[name])) {
        report('stale-index-key', `Book ${sk}'s index keys do not match its author, year and id`);
      }
      books.set(sk, item);
    } else if (typeof pk === 'string' && pk.startsWith(ISBN_CLAIM_PREFIX) && sk === 0) {
      claims.set(pk.slice(ISBN_CLAIM_PREFIX.length), item);
    } else if (typeof pk === 'string' && pk.startsWith(IDEMPOTENCY_RECORD_PREFIX) && sk === 0) {
      if (live(item.expiresAt)) keyRecords.set(pk, item);
    } else if (pk === ID_BLOCKS_KEY.pk && sk === ID_BLOCKS_KEY.sk) {
      idBlocks = item;
    } else {
      report('malformed-item', `Unknown item pk=${String(pk)} sk=${String(sk)}`);
    }
  }

  const lastId = idBlocks === undefined ? 0 : Number(idBlocks.highMark ?? 0);
  if (books.size > 0 && idBlocks === undefined)
    report('missing-id-blocks', `${books.size} books but no id-blocks item`);
  if (idBlocks !== undefined && schemaVersionOf(idBlocks) < SCHEMA_VERSION) {
    report(
      'schema-behind',
      `The table's schemaVersion is ${schemaVersionOf(idBlocks)}, not ${SCHEMA_VERSION} (run ${MIGRATE_COMMAND})`,
    );
  }
  const opened = lastId > 0 ? bookRangeOf(lastId) : 0;
  // Named one by one up to a few, then counted: a loop over every range of a high mark could run for ever.
  let named = 0;
  for (let range = 0; range < opened && named < MISSING_MARKS_NAMED; range++) {
    if (marks.has(range)) continue;
    named++;
    report('missing-range-mark', `Range ${range} (ids ${range * BOOK_RANGE_SIZE}…) has no end mark`);
  }
  const unmarked = opened - [...marks].filter((range) => range < opened).length;
  if (unmarked > named) report('missing-range-mark', `${unmarked - named} more ranges have no end mark`);
  for (const range of marks) {
    if (range >= opened) report('stray-range-mark', `Range ${range} has an end mark but the high mark is ${lastId}`);
  }

  const owners = new Map<string, number[]>();
  for (const [id, book] of books) {
    if (idBlocks !== undefined && id > lastId)
      report('id-above-high-mark', `Book ${id} is above the highest reserved id ${lastId}`);
    const key = normalizeIsbn(book.isbn as string);
    if (book.isbnKey !== key) report('stale-isbn-key', `Book ${id} has isbnKey ${String(book.isbnKey)}, not ${key}`);
    owners.set(key, [...(owners.get(key) ?? []), id]);
    const claim = claims.get(key);
    if (!claim) report('missing-claim', `Book ${id}'s ISBN ${key} has no claim item`);
    else if (claim.bookId !== id) {
      report('foreign-claim', `Book ${id}'s ISBN ${key} is claimed by book ${String(claim.bookId)}`);
    }
    if (typeof book.idempotencyRecord === 'string' && live(book.idempotencyExpiresAt)) {
      const record = keyRecords.get(book.idempotencyRecord);
      if (record?.bookId !== id)
        report('missing-key-record', `Book ${id}'s Idempotency-Key record is missing or another's`);
    }
  }
  for (const [pk, record] of keyRecords) {
    const book = books.get(record.bookId as number);
    if (book?.idempotencyRecord !== pk) {
      report(
        'orphan-key-record',
        `Idempotency-Key record ${pk} names book ${String(record.bookId)}, which does not name it`,
      );
    }
  }
  for (const [key, ids] of owners) {
    if (ids.length > 1) report('duplicate-isbn', `Books ${ids.join(', ')} share the ISBN ${key}`);
  }
  for (const [key, claim] of claims) {
    const owner = books.get(claim.bookId as number);
    if (!owner || normalizeIsbn(owner.isbn as string) !== key) {
      report('orphan-claim', `Claim on ISBN ${key} points at book ${String(claim.bookId)}, which does not hold it`);
    }
  }
  return { books: books.size, claims: claims.size, keyRecords: keyRecords.size, lastId, violations };
};

/** Reads the whole table with strongly consistent scans and checks it. */
export const checkBooksTable = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  now = Date.now(),
): Promise<TableReport> => {
  const items: Item[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName, ConsistentRead: true })) {
    items.push(...((page.Items ?? []) as Item[]));
  }
  return findViolations(items, now);
};
