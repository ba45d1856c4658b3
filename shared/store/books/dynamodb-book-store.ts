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
import { IdBlocksView } from './id-blocks-view';
import { countAndRemember, rememberedCountReaches } from './remembered-list-count';
import { checkSchemaVersion, stampNewTable } from './schema-version';
import { versioned } from './update-expressions';

/**
 * The BookStore port on DynamoDB: reads and lists (book-reads.ts), the single-item update
 * (book-writes.ts) and the transactions (book-transactions.ts). Before its first operation a
 * container checks the table's schemaVersion once (schema-version.ts).
 */
export class DynamoBookStore implements BookStore {
  private readonly ids: IdBlockAllocator;
  private readonly context: BookStoreContext;
  private readonly transactions: BookTransactions;
  private schema: Promise<'current' | 'absent'> | undefined;

  /** `clock` gives the time against which idempotency records expire (tests move it). */
  constructor(client: DynamoDBDocumentClient, tableName: string, clock: () => number = Date.now) {
    const idBlocks = new IdBlocksView();
    this.ids = new IdBlockAllocator(client, tableName, idBlocks);
    this.context = { client, tableName, nowSeconds: () => Math.floor(clock() / 1000), idBlocks };
    this.transactions = new BookTransactions(this.context);
  }

  /**
   * The schema check, once per container; a failed one (a table behind) is made again on the next
   * call. Only a create writes, so only a create stamps a new table (read-only roles may not write).
   */
  private async ready(forCreate = false): Promise<void> {
    const once = (check: () => Promise<'current' | 'absent'>) => {
      const running = check().catch((error: unknown) => {
        if (this.schema === running) this.schema = undefined;
        throw error;
      });
      this.schema = running;
      return running;
    };
    const found = await (this.schema ?? once(() => checkSchemaVersion(this.context)));
    if (forCreate && found === 'absent') await once(() => stampNewTable(this.context));
  }

  /**
   * A create that stores nothing gives its id back to this container's block (a replay, which
   * returns the first request's book; a duplicate ISBN; a reused key; a race lost to the end), so
   * ids are consumed only by books that exist. A create whose outcome is unknown keeps its id.
   */
  async create(book: NewBook, idempotency?: IdempotentRequest, createdBy?: string): Promise<VersionedBook> {
    await this.ready(true);
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
    await this.ready();
    const item = await readBookItem(this.context, id);
    return item && versioned(item);
  }

  iterate(filter: BookFilter, options?: ListOptions): AsyncIterable<Book> {
    return this.afterCheck(() => iterateBooks(this.context, filter, options));
  }

  /** Unfiltered, decided once: a count that reached `upTo` stands for a while (remembered-list-count.ts). */
  async countUpTo(filter: BookFilter, upTo: number): Promise<number> {
    await this.ready();
    if (filter.author !== undefined || filter.year !== undefined) return countBooks(this.context, filter, upTo);
    return countAndRemember(this.context, upTo, () => countBooks(this.context, filter, upTo));
  }

  /**
   * Unfiltered: whether a recent count found at least `upTo` books, from one read of the id-blocks
   * item, made only when this container knows more ids were reserved than `upTo`; else false, with no call.
   */
  async knownToReach(filter: BookFilter, upTo: number): Promise<boolean> {
    await this.ready();
    if (filter.author !== undefined || filter.year !== undefined) return false;
    if (this.context.idBlocks.knownHighMark < upTo) return false;
    const { item } = await this.context.idBlocks.refresh(this.context);
    return rememberedCountReaches(item, upTo, this.context.nowSeconds());
  }

  /** Unfiltered: the highest id reserved (one read), which no number of books can exceed. */
  async upperBound(filter: BookFilter): Promise<number | undefined> {
    await this.ready();
    if (filter.author !== undefined || filter.year !== undefined) return undefined;
    const { highMark } = await this.context.idBlocks.refresh(this.context);
    return highMark;
  }

  async update(id: number, change: BookChange, condition?: VersionCondition): Promise<VersionedBook> {
    await this.ready();
    return updateBook(this.context, this.transactions, id, change, condition);
  }

  async delete(id: number, condition?: VersionCondition): Promise<void> {
    await this.ready();
    return this.transactions.delete(id, condition);
  }

  /** A lazy list that checks the schema before its first read, then hands each item straight through. */
  private afterCheck<T>(list: () => AsyncIterable<T>): AsyncIterable<T> {
    const ready = () => this.ready();
    return {
      [Symbol.asyncIterator]: () => {
        let inner: AsyncIterator<T> | undefined;
        const started = ready().then(() => {
          inner = list()[Symbol.asyncIterator]();
          return inner;
        });
        started.catch(() => undefined); // a list never iterated leaves no unhandled rejection
        return {
          next: () => (inner ? inner.next() : started.then((iterator) => iterator.next())),
          return: async (value?: unknown) => (await inner?.return?.(value)) ?? { done: true, value: undefined },
        };
      },
    };
  }
}

/** The errors a create raises only from a cancelled transaction (every attempt cancelled, nothing written). */
const storedNothing = (error: unknown) =>
  error instanceof DuplicateIsbnError ||
  error instanceof IdempotencyKeyReusedError ||
  error instanceof ConcurrentUpdateError;
