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
  /** Whether an item read by `find` (or by readBookItem) is the older layout's. */
  holds(item: BookItem): boolean;
  /** Copies a book's older item to its current key (the write that found it then runs again). */
  copy(item: BookItem): Promise<void>;
  /** Copies a book missing from its key from the older layout, if it is there: true if so (run the write again). */
  copyIfThere(id: number): Promise<boolean>;
  /** The delete of the book's older item that joins a delete's transaction, while the table may hold one. */
  deleteWrite(id: number): TransactWrite | undefined;
}

/** What one run of the older layout's move did (npm run migrate). */
export interface OlderBooksMoved {
  /** Books copied to the range layout by this run. */
  copied: number;
  /** Older items this run found copied already (by an earlier run, or by the service writing the book). */
  alreadyCopied: number;
  /** Older items deleted once the table was marked migrated. */
  removed: number;
}

export interface MoveOptions {
  /** How long to wait between marking the table and deleting the older items: lists begun before the mark end first. */
  graceMs: number;
  log: (line: string) => void;
}

/** An older layout as the composition root wires it: the seam for a store, the one-off move, and check:data's test. */
export interface OlderLayoutKit {
  open(parts: { client: DynamoDBDocumentClient; tableName: string; layout: LayoutState }): OlderLayout;
  /** Moves every book of a table out of the older layout and marks the table migrated (re-runnable). */
  moveBooks(client: DynamoDBDocumentClient, tableName: string, options: MoveOptions): Promise<OlderBooksMoved>;
  /** Whether a scanned item is the older layout's (a book left behind). */
  isOlderItem(item: { pk?: unknown }): boolean;
}

const NOTHING_THERE: OlderLayout = {
  mayRemain: () => false,
  find: async () => undefined,
  extraQueries: () => [],
  holds: () => false,
  copy: async () => undefined,
  copyIfThere: async () => false,
  deleteWrite: () => undefined,
};

/** For a version that knows no older layout: every table has migrated (docs/upgrade.md says when). */
export const NO_OLDER_LAYOUT: OlderLayoutKit = {
  open: () => NOTHING_THERE,
  moveBooks: async () => ({ copied: 0, alreadyCopied: 0, removed: 0 }),
  isOlderItem: () => false,
};
