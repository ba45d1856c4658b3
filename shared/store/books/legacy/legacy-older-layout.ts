import type { BookItem } from '../book-items';
import type { KeyQuery } from '../key-queries';
import type { LayoutState } from '../layout-state';
import type { CopyOutcome, OlderLayout, OlderLayoutKit, TransactWrite } from '../older-layout';
import {
  copyLegacyBook,
  isLegacyBookItem,
  legacyBookKey,
  legacyShardQueries,
  readLegacyBookItem,
  type Table,
} from './legacy-layout';

/**
 * The seam on a table that may still hold the older layout. What this container knows of the
 * table (LayoutState) says when it cannot any more: the id-blocks item's mark, which never
 * reverts, so from then on no method makes a call.
 */
class LegacyOlderLayout implements OlderLayout {
  constructor(private readonly table: Table & { layout: LayoutState }) {}

  mayRemain(): boolean {
    return !this.table.layout.migrated;
  }

  /** The older key and the id-blocks item, read together: the item's mark ends the older layout for good. */
  async find(id: number): Promise<BookItem | undefined> {
    if (!this.mayRemain()) return undefined;
    const [old, state] = await Promise.all([readLegacyBookItem(this.table, id), this.table.layout.refresh(this.table)]);
    return state.migrated ? undefined : old;
  }

  extraQueries(): KeyQuery[] {
    return this.mayRemain() ? legacyShardQueries(this.table) : [];
  }

  keyQueries(): KeyQuery[] {
    return legacyShardQueries(this.table);
  }

  read(id: number): Promise<BookItem | undefined> {
    return readLegacyBookItem(this.table, id);
  }

  holds(item: BookItem): boolean {
    return isLegacyBookItem(item);
  }

  copy(item: BookItem): Promise<CopyOutcome> {
    return copyLegacyBook(this.table, item);
  }

  async copyIfThere(id: number): Promise<boolean> {
    const old = await this.find(id);
    if (!old) return false;
    await copyLegacyBook(this.table, old);
    return true;
  }

  /** A list that still merges the older layout would otherwise show the deleted book's older item. */
  deleteWrite(id: number): TransactWrite | undefined {
    return this.mayRemain() ? { Delete: { TableName: this.table.tableName, Key: legacyBookKey(id) } } : undefined;
  }
}

/**
 * The older layout as the composition root wires it.
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const LEGACY_LAYOUT: OlderLayoutKit = {
  open: (table) => new LegacyOlderLayout(table),
  isOlderItem: isLegacyBookItem,
};
