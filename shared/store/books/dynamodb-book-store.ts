import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdateError, DuplicateIsbnError, IdempotencyKeyReusedError } from '../../books/errors';
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
// The one line that wires the older layout (docs/upgrade.md). Once every table has migrated, delete
// the folder ./legacy and replace this line by: import { NO_OLDER_LAYOUT as OLDER_LAYOUT } from './older-layout';
import { LEGACY_LAYOUT as OLDER_LAYOUT } from './legacy/legacy-older-layout';
import { countWithVerdict, verdictHolds } from './list-verdict';
import type { OlderLayout } from './older-layout';
import { versioned } from './update-expressions';

/**
 * The BookStore port on DynamoDB, in three parts: reads and list queries (book-reads.ts), the
 * single-item update (book-writes.ts) and the transactions with their named outcomes
 * (book-transactions.ts). Ids come from this container's block, mostly without a call. This is the
 * store's composition root, the only module that knows which older layout a table may still hold
 * (older-layout.ts): while it may, a book found only there is copied to its current key before it
 * is written, and reads and lists look in both layouts.
 */
export class DynamoBookStore implements BookStore {
  private readonly ids: IdBlockAllocator;
  private readonly context: BookStoreContext;
  private readonly transactions: BookTransactions;

  /** `clock` gives the time against which idempotency records expire (tests move it). */
  constructor(client: DynamoDBDocumentClient, tableName: string, clock: () => number = Date.now) {
    const layout = new LayoutState();
    this.ids = new IdBlockAllocator(client, tableName, layout);
    this.context = {
      client,
      tableName,
      nowSeconds: () => Math.floor(clock() / 1000),
      layout,
      olderLayout: OLDER_LAYOUT.open({ client, tableName, layout }),
    };
    this.transactions = new BookTransactions(this.context);
  }

  /**
   * A create that stores nothing gives its id back to this container's block (a replay, which
   * returns the first request's book; a duplicate ISBN; a reused key; a race lost to the end), so
   * ids are consumed only by books that exist. A create whose outcome is unknown keeps its id.
   */
  async create(book: NewBook, idempotency?: IdempotentRequest, createdBy?: string): Promise<VersionedBook> {
    const id = await this.ids.allocate();
    try {
      const created = await this.transactions.create(id, book, idempotency, createdBy);
      if (created.book.id !== id) this.ids.release(id);
      return created;
    } catch (error) {
      if (storedNothing(error)) this.ids.release(id);
      throw error;
    }
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const item = await readBookItem(this.context, id);
    return item && versioned(item);
  }

  iterate(filter: BookFilter, options?: ListOptions): AsyncIterable<Book> {
    return iterateBooks(this.context, filter, options);
  }

  /** Unfiltered, decided once: a count that reached `upTo` stands for a while (list-verdict.ts). */
  countUpTo(filter: BookFilter, upTo: number): Promise<number> {
    if (filter.author !== undefined || filter.year !== undefined) return countBooks(this.context, filter, upTo);
    return countWithVerdict(this.context, upTo, () => countBooks(this.context, filter, upTo));
  }

  /**
   * Unfiltered: whether a recent count found at least `upTo` books, from one read of the counter,
   * made only when this container knows more ids were reserved than `upTo` or has not read the
   * counter yet (that read then also tells the list what it needs). Otherwise false, with no call.
   */
  async knownToReach(filter: BookFilter, upTo: number): Promise<boolean> {
    if (filter.author !== undefined || filter.year !== undefined) return false;
    const { layout, olderLayout } = this.context;
    if (layout.counterRead && !olderLayout.mayRemain() && layout.knownHighMark < upTo) return false;
    const { item } = await this.context.layout.refresh(this.context);
    return verdictHolds(item, upTo, this.context.nowSeconds());
  }

  /**
   * Unfiltered, once no book can remain in the older layout: the highest id reserved (one read of the
   * id-blocks item), which no number of books can exceed; a catalogue under the list cap by it needs no count.
   */
  async upperBound(filter: BookFilter): Promise<number | undefined> {
    if (filter.author !== undefined || filter.year !== undefined) return undefined;
    const { highMark } = await this.context.layout.refresh(this.context);
    return this.context.olderLayout.mayRemain() ? undefined : highMark;
  }

  update(id: number, change: BookChange, condition?: VersionCondition): Promise<VersionedBook> {
    return updateBook(this.context, this.transactions, id, change, condition);
  }

  delete(id: number, condition?: VersionCondition): Promise<void> {
    return this.transactions.delete(id, condition);
  }
}

/** The errors a create raises only from a cancelled transaction (every attempt cancelled, nothing written). */
const storedNothing = (error: unknown) =>
  error instanceof DuplicateIsbnError ||
  error instanceof IdempotencyKeyReusedError ||
  error instanceof ConcurrentUpdateError;

/** The older layout's seam for the migration (admin/migrate-layout.ts): nothing there once this version knows none. */
export const openOlderLayout = (parts: {
  client: DynamoDBDocumentClient;
  tableName: string;
  layout: LayoutState;
}): OlderLayout => OLDER_LAYOUT.open(parts);

/** Whether a scanned item is a book left in the older layout (npm run data:check). */
export const isOlderLayoutItem = (item: { pk?: unknown }): boolean => OLDER_LAYOUT.isOlderItem(item);
