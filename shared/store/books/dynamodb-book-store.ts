import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdempotentRequest } from '../../books/idempotency';
import type { BookChange, BookStore, ListOptions } from '../../books/ports';
import type { VersionCondition } from '../../books/preconditions';
import type { Book, BookFilter, NewBook, VersionedBook } from '../../books/types';
import { countBooks, iterateBooks, readBookItem } from './book-reads';
import type { BookStoreContext } from './book-store-context';
import { BookTransactions } from './book-transactions';
import { updateBook } from './book-writes';
import { IdBlockAllocator } from './id-blocks';
import { LayoutState } from './layout-state';
import { versioned } from './update-expressions';

/**
 * The BookStore port on DynamoDB, in three parts: reads and list queries (book-reads.ts), the
 * single-item update (book-writes.ts) and the transactions with their named outcomes
 * (book-transactions.ts). Ids come from this container's block, mostly without a call. While a
 * table still holds books in the older layout (legacy-layout.ts), a book found only there is copied
 * to its current key before it is written, and reads and lists look in both layouts.
 */
export class DynamoBookStore implements BookStore {
  private readonly ids: IdBlockAllocator;
  private readonly context: BookStoreContext;
  private readonly transactions: BookTransactions;

  /** `clock` gives the time against which idempotency records expire (tests move it). */
  constructor(client: DynamoDBDocumentClient, tableName: string, clock: () => number = Date.now) {
    const layout = new LayoutState();
    this.ids = new IdBlockAllocator(client, tableName, layout);
    this.context = { client, tableName, nowSeconds: () => Math.floor(clock() / 1000), layout };
    this.transactions = new BookTransactions(this.context);
  }

  async create(book: NewBook, idempotency?: IdempotentRequest): Promise<VersionedBook> {
    return this.transactions.create(await this.ids.allocate(), book, idempotency);
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const item = await readBookItem(this.context, id);
    return item && versioned(item);
  }

  iterate(filter: BookFilter, options?: ListOptions): AsyncIterable<Book> {
    return iterateBooks(this.context, filter, options);
  }

  countUpTo(filter: BookFilter, upTo: number): Promise<number> {
    return countBooks(this.context, filter, upTo);
  }

  /**
   * Unfiltered, on a migrated table: the highest id reserved (one read of the id-blocks item), which no
   * number of books can exceed; a catalogue under the list cap by it needs no count.
   */
  async upperBound(filter: BookFilter): Promise<number | undefined> {
    if (filter.author !== undefined || filter.year !== undefined) return undefined;
    const { highMark, migrated } = await this.context.layout.refresh(this.context);
    return migrated ? highMark : undefined;
  }

  update(id: number, change: BookChange, condition?: VersionCondition): Promise<VersionedBook> {
    return updateBook(this.context, this.transactions, id, change, condition);
  }

  delete(id: number, condition?: VersionCondition): Promise<void> {
    return this.transactions.delete(id, condition);
  }
}
