import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BOOK_FIELDS,
  BOOK_INPUT_FIELDS,
  MAX_AUTHOR_LENGTH,
  MAX_ISBN_LENGTH,
  NUMBER_FIELDS,
  TEXT_FIELD_MAX_LENGTHS,
} from '../../books/book-schema';
import { normalizeAuthor, normalizeIsbn } from '../../books/normalize';
import type { BookChange } from '../../books/ports';
import type { Book } from '../../books/types';
import { ID_BLOCKS_PARTITION } from '../tables';

/**
 * The books table's items and the mappers between items and books, in one place: books in id
 * ranges (a page of neighbours is one Query), each author over AUTHOR_SHARDS index keys and each
 * year over YEAR_SHARDS, all following from the id (docs/data-model.md says why these sizes).
 */
export const BOOK_RANGE_SIZE = 64;
export const AUTHOR_SHARDS = 2;
export const YEAR_SHARDS = 16;

export const BOOK_PARTITION_PREFIX = 'BOOKS#';
export const ISBN_CLAIM_PREFIX = 'ISBN#';
export const ID_BLOCKS_KEY = { pk: ID_BLOCKS_PARTITION, sk: 0 } as const;
export const IDEMPOTENCY_RECORD_PREFIX = 'IDEMPOTENCY#';

/** The books table's TTL attribute (epoch seconds): only idempotency records carry it, never a book. */
export const EXPIRES_AT_ATTRIBUTE = 'expiresAt';

export const BY_AUTHOR_INDEX = 'byAuthorShard';
/** The author's keys again, sorted by year then id: a page filtered by author and year reads only its matches. */
export const BY_AUTHOR_YEAR_INDEX = 'byAuthorYear';
export const BY_YEAR_INDEX = 'byYearShard';

/** DynamoDB's limit on a partition key value (index keys included), in UTF-8 bytes. */
export const MAX_PARTITION_KEY_BYTES = 2048;

/** Digits of a year and of an id in the author-and-year sort key: both are safe integers, at most 16 digits. */
const YEAR_ID_DIGITS = 16;

const TEXT_CHARACTERS = Object.values(TEXT_FIELD_MAX_LENGTHS).reduce((sum, max) => sum + max, 0);

/**
 * The largest a book item can be: every character of its text fields, author again twice (the index
 * key, inside the index's shard key) and ISBN once more, at 3 UTF-8 bytes (a surrogate pair is 4
 * bytes for 2 characters), plus 512 bytes for attribute names, numbers and timestamps, and the
 * author-and-year sort key.
 */
export const MAX_BOOK_ITEM_BYTES =
  3 * (TEXT_CHARACTERS + 2 * MAX_AUTHOR_LENGTH + MAX_ISBN_LENGTH) + 512 + 'yearId'.length + 2 * YEAR_ID_DIGITS + 1;

/**
 * What a whole-list merge may hold of item data at once, however many keys it spans: each key has
 * the page being merged and the next one read ahead.
 */
export const LIST_MERGE_BUDGET_BYTES = 6 * 1024 * 1024;
const PAGES_HELD_PER_KEY = 2;

/** The Query page size of a whole list spread over `keys` keys, within LIST_MERGE_BUDGET_BYTES. */
export const streamPageItems = (keys: number): number =>
  Math.max(1, Math.floor(LIST_MERGE_BUDGET_BYTES / (PAGES_HELD_PER_KEY * keys * MAX_BOOK_ITEM_BYTES)));

export const bookRangeOf = (id: number) => Math.floor(id / BOOK_RANGE_SIZE);
const authorShardOf = (id: number) => id % AUTHOR_SHARDS;
const yearShardOf = (id: number) => id % YEAR_SHARDS;
export const bookPartition = (range: number) => `${BOOK_PARTITION_PREFIX}${range}`;
export const bookKey = (id: number) => ({ pk: bookPartition(bookRangeOf(id)), sk: id });

/**
 * A range's end mark: an item sorted after every id of its range, which exists exactly when a later
 * range has been opened, so a Query that reads a range to its end learns whether the list goes on.
 */
export const rangeMarkKey = (range: number) => ({ pk: bookPartition(range), sk: (range + 1) * BOOK_RANGE_SIZE - 0.5 });
const RANGE_MARK_ATTRIBUTE = 'rangeMark';
export const rangeMarkItem = (range: number) => ({ ...rangeMarkKey(range), [RANGE_MARK_ATTRIBUTE]: true });
export const isRangeMark = (item: Record<string, unknown>) => item[RANGE_MARK_ATTRIBUTE] === true;
/** A book's key: a range's partition and a whole id (an end mark's sort key is never whole; claims, blocks and key records have other partitions). */
export const isBookKey = (key: { pk?: unknown; sk?: unknown }): boolean =>
  typeof key.pk === 'string' && key.pk.startsWith(BOOK_PARTITION_PREFIX) && Number.isSafeInteger(key.sk);
export const isbnClaimKey = (isbn: string) => ({ pk: `${ISBN_CLAIM_PREFIX}${normalizeIsbn(isbn)}`, sk: 0 });
/** Shard first: the author key is free text, the shard a number, so the two cannot run together. */
export const authorShardKey = (authorKey: string, shard: number) => `${shard}#${authorKey}`;
export const yearShardKey = (year: number, shard: number) => `${shard}#${year}`;
/**
 * The author-and-year index's sort key: year, then id, each zero-padded to the same width, so the
 * string order is year order, then id order, and one author's books of one year share a prefix
 * (yearIdPrefix). A string because year · 10^16 + id would not fit a JavaScript number exactly.
 */
export const yearIdKey = (year: number, id: number) => `${yearIdPrefix(year)}${padded(id)}`;
export const yearIdPrefix = (year: number) => `${padded(year)}#`;
const padded = (value: number) => String(value).padStart(YEAR_ID_DIGITS, '0');

export const shards = (count: number) => Array.from({ length: count }, (_, shard) => shard);

/**
 * A book as stored: the Book plus its keys, index attributes and an optimistic-lock version (from
 * which its entity tag is derived). A book created with an idempotency key names that key's record
 * and its expiry, so deleting the book also removes a record that still holds.
 */
export interface BookItem extends Book {
  pk: string;
  sk: number;
  authorKey: string;
  authorShard: string;
  yearShard: string;
  yearId: string;
  isbnKey: string;
  version: number;
  idempotencyRecord?: string;
  idempotencyExpiresAt?: number;
  /** The users who created the book and who last changed it (not part of the Book clients see). */
  createdBy?: string;
  updatedBy?: string;
}

/**
 * An Idempotency-Key's record: the book the keyed create made, as first returned, and the request's
 * fingerprint, under a digest of user and key (so users' keys never meet). Past `expiresAt` the store treats it as gone.
 */
export interface IdempotencyRecord {
  pk: string;
  sk: 0;
  bookId: number;
  fingerprint: string;
  book: Book;
  version: number;
  expiresAt: number;
}

export const idempotencyRecordKey = (owner: string, key: string) => ({
  pk: `${IDEMPOTENCY_RECORD_PREFIX}${createHash('sha256')
    .update(JSON.stringify([owner, key]))
    .digest('base64url')}`,
  sk: 0 as const,
});

/**
 * The stored attributes a change sets: the supplied fields, what derives from them (index and ISBN
 * keys), updatedAt. A field supplied as `undefined` stays so: the update expression removes it.
 */
export const changedAttributes = (id: number, change: BookChange): Record<string, unknown> => {
  const attributes: Record<string, unknown> = {};
  for (const field of BOOK_INPUT_FIELDS) if (field in change) attributes[field] = change[field];
  if (change.author !== undefined) {
    const authorKey = normalizeAuthor(change.author);
    Object.assign(attributes, {
      authorKey,
      authorShard: authorShardKey(authorKey, authorShardOf(id)),
    });
  }
  if (change.isbn !== undefined) attributes.isbnKey = normalizeIsbn(change.isbn);
  if (change.publicationYear !== undefined) {
    Object.assign(attributes, {
      yearShard: yearShardKey(change.publicationYear, yearShardOf(id)),
      yearId: yearIdKey(change.publicationYear, id),
    });
  }
  attributes.updatedAt = change.updatedAt;
  if (change.updatedBy !== undefined) attributes.updatedBy = change.updatedBy;
  return attributes;
};

/** The stored form of a book; exported for bulk loaders (the benchmark) that must write what the store reads. */
export const toBookItem = (book: Book, version: number): BookItem => {
  const authorKey = normalizeAuthor(book.author);
  return {
    ...book,
    ...bookKey(book.id),
    authorKey,
    authorShard: authorShardKey(authorKey, authorShardOf(book.id)),
    yearShard: yearShardKey(book.publicationYear, yearShardOf(book.id)),
    yearId: yearIdKey(book.publicationYear, book.id),
    isbnKey: normalizeIsbn(book.isbn),
    version,
  };
};

/**
 * A Query's projection of a book's own attributes: all a list needs of an item, whose keys, index
 * keys and version would otherwise come back with every book. Every name goes through an alias,
 * so none can collide with DynamoDB's reserved words.
 */
export const BOOK_PROJECTION = {
  ProjectionExpression: BOOK_FIELDS.map((_, i) => `#b${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(BOOK_FIELDS.map((field, i) => [`#b${i}`, field])),
};

/**
 * A book from an item in DynamoDB's attribute-value form, as a Query with BOOK_PROJECTION returns it.
 * Read field by field because the fields are known: the generic unmarshaller builds an entries
 * array per attribute and a copy of the item, which over a whole list outweighs the books.
 */
export const bookFromAttributes = (item: Record<string, AttributeValue>): Book => {
  const book: Record<string, unknown> = {};
  for (const field of BOOK_FIELDS) {
    const value = item[field];
    if (value !== undefined) book[field] = NUMBER_FIELDS.has(field) ? Number(value.N) : value.S;
  }
  return book as unknown as Book;
};

/** The book's own fields, in the contract's order, from an item or a stored copy of a book. */
export const toBook = (item: Book): Book => {
  const book: Record<string, unknown> = {};
  for (const field of BOOK_FIELDS) {
    const value = item[field];
    if (value !== undefined) book[field] = NUMBER_FIELDS.has(field) ? Number(value) : value;
  }
  return book as unknown as Book;
};
