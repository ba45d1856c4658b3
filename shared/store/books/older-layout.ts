import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BookItem } from './book-items';
import type { KeyQuery } from './key-queries';
import type { LayoutState } from './layout-state';

/** One write of a TransactWriteItems call. */
export type TransactWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The seam between the book store and a layout its tables may still hold books in while they
 * migrate (docs/upgrade.md). Reads, writes, transactions and key queries call it and never ask
 * whether a table has migrated: on a table that cannot hold the older layout any more, each
 * method answers "nothing there" without a call. Only the composition root
 * (dynamodb-book-store.ts) chooses the implementation.
 */
export interface OlderLayout {
  /** Whether the table may still hold books there, as far as this container knows without a call. */
  mayRemain(): boolean;
  /** A book's older item, while the table may hold one (strongly consistent; a copied one has no index keys). */
  find(id: number): Promise<BookItem | undefined>;
  /** The older layout's keys, to merge into an unfiltered list or count; none once it is gone. */
  extraQueries(): KeyQuery[];
  /** Every key of the older layout, whatever the table's mark (the migration empties them). */
  keyQueries(): KeyQuery[];
  /** A book's older item as stored, with no look at the mark (the migration reads it again after a lost copy). */
  read(id: number): Promise<BookItem | undefined>;
  /** Whether an item read by `find` (or by readBookItem) is the older layout's. */
  holds(item: BookItem): boolean;
  /** Copies a book's older item to its current key, if none is there and the older one is still as read. */
  copy(item: BookItem): Promise<CopyOutcome>;
  /** Copies a book missing from its key from the older layout, if it is there: true if so (run the write again). */
  copyIfThere(id: number): Promise<boolean>;
  /** The delete of the book's older item that joins a delete's transaction, while the table may hold one. */
  deleteWrite(id: number): TransactWrite | undefined;
}

/** How a copy ended: done, done before (by the migration or the service), or the older item changed or raced. */
export type CopyOutcome = 'copied' | 'already-copied' | 'changed' | 'conflict';

/** An older layout as the composition root wires it: the seam for a store or the migration, and data:check's test. */
export interface OlderLayoutKit {
  open(parts: { client: DynamoDBDocumentClient; tableName: string; layout: LayoutState }): OlderLayout;
  /** Whether a scanned item is the older layout's (a book left behind). */
  isOlderItem(item: { pk?: unknown }): boolean;
}

const NOTHING_THERE: OlderLayout = {
  mayRemain: () => false,
  find: async () => undefined,
  extraQueries: () => [],
  keyQueries: () => [],
  read: async () => undefined,
  holds: () => false,
  copy: async () => 'already-copied',
  copyIfThere: async () => false,
  deleteWrite: () => undefined,
};

/** For a version that knows no older layout: every table has migrated (docs/upgrade.md says when). */
export const NO_OLDER_LAYOUT: OlderLayoutKit = {
  open: () => NOTHING_THERE,
  isOlderItem: () => false,
};
