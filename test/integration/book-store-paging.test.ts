import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Book, BookFilter } from '../../shared/books/types';
import { BOOK_RANGE_SIZE } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * Listing a table bigger than one 1 MB DynamoDB page. It writes 2,400 books (about half a minute), so
 * it lives apart from the store's fast tests (test/integration/*-store.test.ts), which mutation
 * testing runs against every mutant of shared/store; there the pages are made small with a limit
 * (book-store-ranges.test.ts) and the same LastEvaluatedKey loop is exercised.
 */

/** Every match, collected from the store's page-by-page iteration. */
const listAll = async (store: DynamoBookStore, filter: BookFilter): Promise<Book[]> => {
  const books: Book[] = [];
  for await (const book of store.iterate(filter)) books.push(book);
  return books;
};

describe('DynamoBookStore over more than one DynamoDB page (Dynoxide)', () => {
  it('lists every book across DynamoDB pages in ascending id order, and filters by index', async () => {
    const own = await createTestTables();
    const client = createPatientDocumentClient(own.endpoint);
    const countQueries: Record<string, unknown>[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (/^(Query|Scan)Command$/.test(String(context.commandName)) && input.Select === 'COUNT')
          countQueries.push(input);
        return next(args);
      },
      { step: 'initialize', name: 'countQueries' },
    );
    const listing = new DynamoBookStore(client, own.names.books);
    const bigTitle = 'x'.repeat(400); // ~3,000 books of ~0.5 KB exceed one 1 MB page
    const created = [];
    for (let start = 0; start < 2_400; start += 100) {
      created.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            listing
              .create(
                newBook(`page-${start + i}`, {
                  title: bigTitle,
                  author: i % 2 ? 'Ursula K. Le Guin' : 'Other',
                  publicationYear: 1900 + (i % 10),
                }),
              )
              .then((stored) => stored.book),
          ),
        )),
      );
    }
    const all = await listAll(listing, {});
    expect(all).toHaveLength(created.length);
    expect(all.map((b) => b.id)).toEqual(created.map((b) => b.id).sort((x, y) => x - y));

    const scanned = await own.documentClient.send(new ScanCommand({ TableName: own.names.books, Select: 'COUNT' }));
    expect(scanned.LastEvaluatedKey).toBeDefined(); // the table really is bigger than one page

    const byAuthor = await listAll(listing, { author: 'URSULA k. le guin' });
    expect(byAuthor).toHaveLength(1_200);
    const byBoth = await listAll(listing, { author: 'ursula k. le guin', year: 1901 });
    expect(byBoth.every((b) => b.publicationYear === 1901 && b.author === 'Ursula K. Le Guin')).toBe(true);
    expect(byBoth).toHaveLength(240);
    const byYear = await listAll(listing, { year: 1900 });
    expect(byYear).toHaveLength(240);
    expect(byYear.map((b) => b.id)).toEqual([...byYear.map((b) => b.id)].sort((x, y) => x - y));

    // Counting holds no book: one COUNT Query per id range (each under 1 MB), eventually consistent.
    expect(await listing.countUpTo({}, 10_000)).toBe(2_400);
    const ranges = countQueries.map(
      (input) => (input.ExpressionAttributeValues as Record<string, { S: string }>)[':pk']?.S,
    );
    expect(new Set(ranges).size).toBe(countQueries.length);
    expect(countQueries.length).toBeLessThanOrEqual(Math.ceil(2_400 / BOOK_RANGE_SIZE) + 2); // ids stay dense
    expect(countQueries.every((input) => input.ConsistentRead === false && !('ProjectionExpression' in input))).toBe(
      true,
    );
    expect(await listing.countUpTo({}, 2_401)).toBe(2_400);
    expect(await listing.countUpTo({}, 2_399)).toBe(2_399);
    expect(await listing.countUpTo({ author: 'URSULA k. le guin' }, 10_000)).toBe(1_200);
    expect(await listing.countUpTo({ author: 'ursula k. le guin', year: 1901 }, 10_000)).toBe(240);
    expect(await listing.countUpTo({ year: 1900 }, 10_000)).toBe(240);
    expect(await listing.countUpTo({ author: 'nobody' }, 10)).toBe(0);
    expect(await listing.countUpTo({ author: 'x'.repeat(3_000) }, 10)).toBe(0);
  }, 120_000);
});
