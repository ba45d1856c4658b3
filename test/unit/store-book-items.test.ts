import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Book } from '../../shared/books/types';
import { BOOK_PROJECTION, bookFromAttributes, toBook, toBookItem } from '../../shared/store/books/book-items';
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
  );

describe('a listed book, read in DynamoDB’s attribute-value form', () => {
  it('projects exactly the book’s own fields, each behind an alias', () => {
    expect(Object.values(BOOK_PROJECTION.ExpressionAttributeNames).sort()).toStrictEqual(Object.keys(book).sort());
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
