import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { BookInputSchema } from '../../shared/books/book-schema';
import type { Book } from '../../shared/books/types';
import {
  BOOK_PROJECTION,
  bookFromAttributes,
  changedAttributes,
  isRangeMark,
  rangeMarkItem,
  toBook,
  toBookItem,
  yearIdKey,
  yearIdPrefix,
} from '../../shared/store/books/book-items';
import { schemaVersionOf, stampSchemaVersion } from '../../shared/store/books/schema-version';
import { STAMP } from '../support/books';

const book: Book = {
  id: 4_096,
  title: 'Les Misérables — 悲惨世界 😀',
  author: 'Victor Hugo',
  isbn: '978-0-14-044430-8',
  publicationYear: 1862,
  createdAt: STAMP,
  updatedAt: '2026-02-03T04:05:06.789Z',
};

/** The item as a Query with BOOK_PROJECTION returns it: the projected attributes, in attribute-value form. */
const projected = (item: object) =>
  marshall(
    Object.fromEntries(
      Object.values(BOOK_PROJECTION.ExpressionAttributeNames).map((name) => [
        name,
        (item as Record<string, unknown>)[name],
      ]),
    ),
    { removeUndefinedValues: true },
  );

describe('a listed book, read in DynamoDB’s attribute-value form', () => {
  it('projects exactly the book’s own fields (the schema’s, id and timestamps), each behind an alias', () => {
    expect(Object.values(BOOK_PROJECTION.ExpressionAttributeNames)).toStrictEqual([
      'id',
      ...Object.keys(BookInputSchema.entries),
      'createdAt',
      'updatedAt',
    ]);
    expect(BOOK_PROJECTION.ProjectionExpression.split(', ').sort()).toStrictEqual(
      Object.keys(BOOK_PROJECTION.ExpressionAttributeNames).sort(),
    );
  });

  it('is the same book, field for field and in the contract’s order, as a stored item read whole', () => {
    const item = toBookItem(book, 7);
    const read = bookFromAttributes(projected(item));
    expect(read).toStrictEqual(book);
    expect(JSON.stringify(read)).toBe(JSON.stringify(toBook(item)));
  });
});

describe('the author-and-year sort key', () => {
  it('sorts by year, then by id, as strings, over the whole range of safe integers', () => {
    const keys = [
      [1000, 1],
      [1000, 2],
      [1000, 10],
      [1999, 1],
      [2000, 9],
      [2000, Number.MAX_SAFE_INTEGER],
      [Number.MAX_SAFE_INTEGER, 1],
    ].map(([year, id]) => yearIdKey(year as number, id as number));
    expect([...keys].sort()).toStrictEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives one year’s books one prefix, which no other year’s key starts with', () => {
    expect(yearIdKey(1969, 42)).toBe('0000000000001969#0000000000000042');
    expect(yearIdKey(1969, 42).startsWith(yearIdPrefix(1969))).toBe(true);
    expect(yearIdKey(19690, 42).startsWith(yearIdPrefix(1969))).toBe(false);
  });

  it('is written with the book, and with a change of the year alone, from the year and the id', () => {
    expect(toBookItem({ ...book, id: 7, publicationYear: 1851 }, 1).yearId).toBe(yearIdKey(1851, 7));
    expect(changedAttributes(7, { publicationYear: 1852, updatedAt: 'u' }).yearId).toBe(yearIdKey(1852, 7));
    expect(changedAttributes(7, { author: 'Someone', updatedAt: 'u' })).toMatchObject({ authorShard: '1#someone' });
    expect(changedAttributes(7, { title: 'T', updatedAt: 'u' })).not.toHaveProperty('yearId');
  });
});

describe('the attribute names docs/data-model.md gives the table’s bookkeeping items (stored data reads them)', () => {
  it('an end mark: its range’s partition, the sort key past every id of the range, rangeMark: true', () => {
    expect(rangeMarkItem(2)).toStrictEqual({ pk: 'BOOKS#2', sk: 64 * 3 - 0.5, rangeMark: true });
    expect(isRangeMark({ rangeMark: true })).toBe(true);
  });

  it('the id-blocks item’s schemaVersion, read and stamped under that name', () => {
    expect(schemaVersionOf({ schemaVersion: 3 })).toBe(3);
    expect(stampSchemaVersion('books', 2).input.ExpressionAttributeNames).toStrictEqual({
      '#version': 'schemaVersion',
    });
  });
});
