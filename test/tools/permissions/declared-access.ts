import { AUTHORIZER, ROUTES } from '../../../shared/api/routes';
import type { TableKind } from '../../../shared/store/call-log';
import {
  AUTHORIZER_AUTH_TABLE_ACCESS,
  BOOKS_TABLE_ACCESS,
  type DynamoDbAction,
  type TableAccess,
} from '../../../shared/store/table-access';
import { AUTH_TABLE, BOOKS_TABLE, ID_BLOCKS_PARTITION, type TableDefinition } from '../../../shared/store/tables';

/** One table a function is meant to reach, and how. */
export interface DeclaredGrant {
  table: TableKind;
  access: TableAccess;
}

/**
 * What each function is meant to reach, read from the declaration the stack grants from
 * (shared/store/table-access.ts), not from the template: a function not named here reaches no table.
 * A new function (say a stream reader) adds its entry here and its resources to forbidden.ts's probes.
 */
export const declaredAccess = (): Record<string, readonly DeclaredGrant[]> => ({
  [AUTHORIZER.name]: [{ table: 'auth', access: AUTHORIZER_AUTH_TABLE_ACCESS }],
  ...Object.fromEntries(
    ROUTES.map((route) => [
      route.name,
      route.access === 'none' ? [] : [{ table: 'books' as const, access: BOOKS_TABLE_ACCESS[route.access] }],
    ]),
  ),
});

/** Where a probed call goes: a table's items, one of its indexes, or anything else (another table, a stream). */
export type Target =
  | { kind: 'table'; table: TableKind }
  | { kind: 'index'; table: TableKind; indexName: string }
  | { kind: 'stream'; table: TableKind }
  | { kind: 'other' };

export const TABLE_DEFINITIONS: Record<TableKind, TableDefinition> = { books: BOOKS_TABLE, auth: AUTH_TABLE };

const includes = (actions: readonly DynamoDbAction[] | undefined, action: string) =>
  (actions as readonly string[] | undefined)?.includes(action) ?? false;

/** Whether the declaration lets `fn` send `action` to `target` with this partition key (undefined: none). */
export const isDeclared = (fn: string, action: string, target: Target, key: string | undefined): boolean =>
  (declaredAccess()[fn] ?? []).some(({ table, access }) => {
    // No function reads a table's stream yet: its reader declares `stream` actions here when it comes.
    if (target.kind === 'other' || target.kind === 'stream' || target.table !== table) return false;
    if (target.kind === 'index') {
      const named = TABLE_DEFINITIONS[table].indexes.some((index) => index.indexName === target.indexName);
      return named && includes(access.indexes, action);
    }
    return includes(access.table, action) || (includes(access.idBlocksItem, action) && key === ID_BLOCKS_PARTITION);
  });
