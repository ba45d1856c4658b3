import { describe, expect, it } from 'vitest';
import { measureListStreaming } from '../../bench/list-streaming';
import { seedBooks } from '../../bench/seed';
import { createTestTables } from '../support/dynamodb';

const BOOKS = 120;
const book = (id: number) => ({
  id,
  title: `Streamed book ${id}`,
  author: `Author ${id % 7}`,
  isbn: `streamed-${id}`,
  publicationYear: 1990 + (id % 30),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** The whole list as the bench measures it: the list function's own answer, in a process of its own. */
describe('the streamed whole list in the bench', () => {
  it('is the list route answering 200 with every book, as an authorized reader gets it', async () => {
    const { endpoint, names, documentClient } = await createTestTables();
    await seedBooks(documentClient, names.books, 1, BOOKS, book);
    const [row] = await measureListStreaming({ endpoint, table: names.books, size: BOOKS, log: () => undefined });
    expect(row).toMatchObject({ size: BOOKS, status: 200, fitsSmallHeap: true });
    // Each book's JSON is more than 150 bytes: a body of BOOKS of them, not an error's.
    expect(row?.bytes).toBeGreaterThan(BOOKS * 150);
  }, 120_000);
});
