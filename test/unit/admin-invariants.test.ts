import { describe, expect, it } from 'vitest';
import { findViolations } from '../../ops/invariants';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import type { Book } from '../../shared/books/types';
import { ID_BLOCKS_KEY, isbnClaimKey, rangeMarkItem, toBookItem } from '../../shared/store/books/book-items';
import { SCHEMA_VERSION } from '../../shared/store/books/schema-version';

/**
 * The invariant checker over items as a scan returns them (test/reliability/invariants.test.ts seeds
 * the same corruptions in Dynoxide). Operators read its messages: each names the item at fault.
 */
const stamp = '2026-01-01T00:00:00.000Z';
const book = (id: number, extra: Partial<Book> = {}): Book => ({
  id,
  title: 'Title',
  author: 'Ursula K. Le Guin',
  isbn: `978-${id}`,
  publicationYear: 1969,
  createdAt: stamp,
  updatedAt: stamp,
  ...extra,
});
const bookItem = (id: number, extra: Partial<Book> = {}): Record<string, unknown> => ({
  ...toBookItem(book(id, extra), 1),
});
const claim = (isbn: string, bookId: unknown) => ({ ...isbnClaimKey(isbn), bookId });
/** The id-blocks item of a table at this version, with the end marks of the ranges below its high mark's. */
const idBlocks = (highMark: number) => [
  { ...ID_BLOCKS_KEY, highMark, schemaVersion: SCHEMA_VERSION },
  ...Array.from({ length: Math.floor(highMark / 64) }, (_, range) => rangeMarkItem(range)),
];
/** A consistent table: books with their claims and the id-blocks item. */
const table = (ids: number[], highMark = 100) => [
  ...ids.flatMap((id) => [bookItem(id), claim(`978-${id}`, id)]),
  ...idBlocks(highMark),
];

describe('findViolations: Idempotency-Key records', () => {
  const now = Date.UTC(2026, 0, 2);
  const seconds = now / 1000;
  const record = (pk: string, bookId: number, expiresAt = seconds + 60) => ({ pk, sk: 0, bookId, expiresAt });
  const keyed = (id: number, pk: string, expiresAt = seconds + 60) => ({
    ...bookItem(id),
    idempotencyRecord: pk,
    idempotencyExpiresAt: expiresAt,
  });

  it('counts live records that agree with their books, and nothing is wrong', () => {
    const items = [keyed(1, 'IDEMPOTENCY#a'), claim('978-1', 1), record('IDEMPOTENCY#a', 1), ...idBlocks(100)];
    expect(findViolations(items, now)).toStrictEqual({
      books: 1,
      claims: 1,
      keyRecords: 1,
      lastId: 100,
      violations: [],
    });
  });

  it('finds a live record without its book, or whose book names another record', () => {
    const items = [
      keyed(1, 'IDEMPOTENCY#other'),
      claim('978-1', 1),
      record('IDEMPOTENCY#a', 1),
      record('IDEMPOTENCY#b', 7),
      record('IDEMPOTENCY#other', 1),
      ...idBlocks(100),
    ];
    expect(findViolations(items, now).violations).toStrictEqual([
      {
        kind: 'orphan-key-record',
        message: 'Idempotency-Key record IDEMPOTENCY#a names book 1, which does not name it',
      },
      {
        kind: 'orphan-key-record',
        message: 'Idempotency-Key record IDEMPOTENCY#b names book 7, which does not name it',
      },
    ]);
  });

  it('finds a book whose live key record is missing or names another book', () => {
    const items = [
      keyed(1, 'IDEMPOTENCY#gone'),
      claim('978-1', 1),
      keyed(2, 'IDEMPOTENCY#taken'),
      claim('978-2', 2),
      keyed(3, 'IDEMPOTENCY#taken'),
      claim('978-3', 3),
      record('IDEMPOTENCY#taken', 3),
      ...idBlocks(100),
    ];
    expect(findViolations(items, now).violations).toStrictEqual([
      { kind: 'missing-key-record', message: "Book 1's Idempotency-Key record is missing or another's" },
      { kind: 'missing-key-record', message: "Book 2's Idempotency-Key record is missing or another's" },
    ]);
  });

  it('leaves expired records and expired keys out, whatever they name (TTL deletes them lazily)', () => {
    const items = [
      keyed(1, 'IDEMPOTENCY#gone', seconds),
      claim('978-1', 1),
      record('IDEMPOTENCY#stale', 9, seconds),
      ...idBlocks(100),
    ];
    expect(findViolations(items, now)).toMatchObject({ keyRecords: 0, violations: [] });
    expect(findViolations(items, now - 1000).violations.map((v) => v.kind)).toStrictEqual([
      'missing-key-record',
      'orphan-key-record',
    ]);
  });
});

describe('findViolations', () => {
  it('finds nothing in a consistent table, and counts books, claims and the highest reserved id', () => {
    expect(findViolations(table([1, 2, 40], 200))).toStrictEqual({
      books: 3,
      claims: 3,
      keyRecords: 0,
      lastId: 200,
      violations: [],
    });
  });

  it('an empty table is consistent, with no id reserved yet', () => {
    expect(findViolations([])).toStrictEqual({ books: 0, claims: 0, keyRecords: 0, lastId: 0, violations: [] });
    expect(findViolations([...idBlocks(100)])).toStrictEqual({
      books: 0,
      claims: 0,
      keyRecords: 0,
      lastId: 100,
      violations: [],
    });
  });

  it('missing-claim: a book whose ISBN nobody claims', () => {
    expect(findViolations([bookItem(1), ...idBlocks(100)]).violations).toStrictEqual([
      { kind: 'missing-claim', message: "Book 1's ISBN 9781 has no claim item" },
    ]);
  });

  it('foreign-claim and orphan-claim: a claim that points at another book', () => {
    const items = [bookItem(1), bookItem(2), claim('978-1', 1), claim('978-2', 1), ...idBlocks(100)];
    expect(findViolations(items).violations).toStrictEqual([
      { kind: 'foreign-claim', message: "Book 2's ISBN 9782 is claimed by book 1" },
      { kind: 'orphan-claim', message: 'Claim on ISBN 9782 points at book 1, which does not hold it' },
    ]);
  });

  it('orphan-claim: a claim whose book is gone', () => {
    expect(findViolations([...table([1]), claim('978-7', 7)]).violations).toStrictEqual([
      { kind: 'orphan-claim', message: 'Claim on ISBN 9787 points at book 7, which does not hold it' },
    ]);
  });

  it('duplicate-isbn: two books with one normalised ISBN (the second claim cannot exist)', () => {
    const items = [bookItem(1, { isbn: '978-1' }), bookItem(2, { isbn: '9781' }), claim('978-1', 1), ...idBlocks(100)];
    expect(findViolations(items).violations).toStrictEqual([
      { kind: 'foreign-claim', message: "Book 2's ISBN 9781 is claimed by book 1" },
      { kind: 'duplicate-isbn', message: 'Books 1, 2 share the ISBN 9781' },
    ]);
  });

  it('stale-isbn-key: a book whose stored isbnKey is not its normalised ISBN', () => {
    const items = [{ ...bookItem(1), isbnKey: '9780' }, claim('978-1', 1), ...idBlocks(100)];
    expect(findViolations(items).violations).toStrictEqual([
      { kind: 'stale-isbn-key', message: 'Book 1 has isbnKey 9780, not 9781' },
    ]);
  });

  it.each(['authorKey', 'authorShard', 'yearShard', 'yearId'])(
    'stale-index-key: a book whose %s does not follow from its author, year and id',
    (name) => {
      const items = [{ ...bookItem(3), [name]: 'stale' }, claim('978-3', 3), ...idBlocks(100)];
      expect(findViolations(items).violations).toStrictEqual([
        { kind: 'stale-index-key', message: "Book 3's index keys do not match its author, year and id" },
      ]);
    },
  );

  it('id-mismatch: a book item whose id is not its sort key, or not a valid id (and it is not counted)', () => {
    for (const [sk, id] of [
      [5, 6],
      [0, 0],
      [-1, -1],
      [1.5, 1.5],
      [MAX_BOOK_ID + 1, MAX_BOOK_ID + 1],
      ['5', '5'],
    ]) {
      const items = [{ ...bookItem(5), pk: 'BOOKS#0', sk, id }, claim('978-5', 5), ...idBlocks(100)];
      const report = findViolations(items);
      expect(report.books).toBe(0);
      expect(report.violations[0]).toStrictEqual({
        kind: 'id-mismatch',
        message: `Book item with sk ${String(sk)} has id ${String(id)}`,
      });
    }
  });

  it('accepts the highest id there is, MAX_BOOK_ID', () => {
    const items = [bookItem(MAX_BOOK_ID), claim(`978-${MAX_BOOK_ID}`, MAX_BOOK_ID), ...idBlocks(64)];
    items[2] = { ...ID_BLOCKS_KEY, highMark: MAX_BOOK_ID, schemaVersion: SCHEMA_VERSION };
    const { books, violations } = findViolations(items);
    expect(books).toBe(1);
    expect(violations.filter((violation) => violation.kind !== 'missing-range-mark')).toStrictEqual([]);
  });

  it('wrong-shard: a book under another shard’s partition key', () => {
    const items = [{ ...bookItem(1), pk: 'BOOKS#2' }, claim('978-1', 1), ...idBlocks(100)];
    expect(findViolations(items).violations).toStrictEqual([
      { kind: 'wrong-shard', message: 'Book 1 is under BOOKS#2, not BOOKS#0' },
    ]);
  });

  it('id-above-high-mark: a book above the highest reserved id; the highest itself is fine', () => {
    expect(findViolations(table([100], 100)).violations).toStrictEqual([]);
    expect(findViolations(table([101], 100)).violations).toStrictEqual([
      { kind: 'id-above-high-mark', message: 'Book 101 is above the highest reserved id 100' },
    ]);
  });

  it('missing-id-blocks: books but no id-blocks item', () => {
    const items = table([1, 2], 2).filter((item) => item.pk !== ID_BLOCKS_KEY.pk);
    expect(findViolations(items)).toStrictEqual({
      books: 2,
      claims: 2,
      keyRecords: 0,
      lastId: 0,
      violations: [{ kind: 'missing-id-blocks', message: '2 books but no id-blocks item' }],
    });
  });

  it('malformed-item: a book without ISBN or author (not counted), or an item of no known kind', () => {
    const { isbn: _isbn, ...noIsbn } = bookItem(1);
    const { author: _author, ...noAuthor } = bookItem(2);
    const items = [
      noIsbn,
      noAuthor,
      { pk: 'ISBN#9783', sk: 1, bookId: 3 },
      { pk: 'ID_BLOCKS', sk: 1, highMark: 5 },
      { pk: 'OTHER', sk: 0 },
      { pk: 7, sk: 0 },
      ...idBlocks(100),
    ];
    expect(findViolations(items)).toStrictEqual({
      books: 0,
      claims: 0,
      keyRecords: 0,
      lastId: 100,
      violations: [
        { kind: 'malformed-item', message: 'Book 1 has no ISBN or author' },
        { kind: 'malformed-item', message: 'Book 2 has no ISBN or author' },
        { kind: 'malformed-item', message: 'Unknown item pk=ISBN#9783 sk=1' },
        { kind: 'malformed-item', message: 'Unknown item pk=ID_BLOCKS sk=1' },
        { kind: 'malformed-item', message: 'Unknown item pk=OTHER sk=0' },
        { kind: 'malformed-item', message: 'Unknown item pk=7 sk=0' },
      ],
    });
  });

  it('reads the id-blocks item’s highMark as a number, as DynamoDB’s document client may give it', () => {
    expect(findViolations([{ ...ID_BLOCKS_KEY, highMark: '300' }]).lastId).toBe(300);
  });
});

describe('findViolations: range end marks and the schemaVersion', () => {
  const books = (ids: number[]) => ids.flatMap((id) => [bookItem(id), claim(`978-${id}`, id)]);
  const item = (highMark: number) => ({ ...ID_BLOCKS_KEY, highMark, schemaVersion: SCHEMA_VERSION });

  it('accepts a mark on every range below the high mark’s', () => {
    const report = findViolations([...books([1, 64, 130]), item(140), rangeMarkItem(0), rangeMarkItem(1)]);
    expect(report.violations).toStrictEqual([]);
    expect(report.books).toBe(3);
  });

  it('reports a missing mark (the list would end there) and a stray one', () => {
    const report = findViolations([...books([1, 130]), item(140), rangeMarkItem(1), rangeMarkItem(2)]);
    expect(report.violations).toStrictEqual([
      { kind: 'missing-range-mark', message: 'Range 0 (ids 0…) has no end mark' },
      { kind: 'stray-range-mark', message: 'Range 2 has an end mark but the high mark is 140' },
    ]);
  });

  it('names the first missing marks and counts the rest, however high the mark', () => {
    const kinds = findViolations([item(MAX_BOOK_ID)]).violations;
    expect(kinds).toHaveLength(11);
    expect(kinds.at(-1)?.message).toBe(`${Math.floor(MAX_BOOK_ID / 64) - 10} more ranges have no end mark`);
  });

  it('reports a mark away from its range’s end as malformed', () => {
    const report = findViolations([...books([1]), item(10), { ...rangeMarkItem(0), sk: 5 }]);
    expect(report.violations.map((violation) => violation.kind)).toStrictEqual(['malformed-item']);
  });

  it('reports a table behind this version’s schemaVersion, naming the command', () => {
    expect(findViolations([{ ...ID_BLOCKS_KEY, highMark: 10 }]).violations).toStrictEqual([
      { kind: 'schema-behind', message: "The table's schemaVersion is 0, not 1 (run npm run data:migrate)" },
    ]);
  });
});
