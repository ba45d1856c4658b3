import type { RecordedCall, TableKind } from '../../../local/call-log';
import { AUTHORIZER, ROUTES } from '../../../shared/api/routes';
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

/** A declared grant wider than the recorded calls use: who, what, and the narrower grant they fit. */
export interface WiderThanUsed {
  function: string;
  line: string;
}

/**
 * Declared grants the recorded calls use only part of: an action on every item of a table whose
 * calls all touch the id-blocks item, or Query on indexes some of which no call reads. A grant is
 * declared per store use, so it is held to the calls of every function of that use together
 * (ReplaceBook reads no book, PatchBook does: both have the update use's GetItem).
 */
export const widerThanUsed = (
  calls: readonly RecordedCall[],
  declared: Record<string, readonly DeclaredGrant[]> = declaredAccess(),
): WiderThanUsed[] => {
  const users = new Map<TableAccess, { table: TableKind; functions: string[] }>();
  for (const [fn, grants] of Object.entries(declared)) {
    for (const { table, access } of grants) {
      const entry = users.get(access) ?? { table, functions: [] };
      users.set(access, { table, functions: [...entry.functions, fn] });
    }
  }
  return [...users.entries()].flatMap(([access, { table, functions }]) => {
    const who = functions.join(' and ');
    const own = calls.filter((call) => functions.includes(call.function ?? '') && call.table === table);
    const itemWide = access.table.filter((action) => {
      const onItems = own.filter((call) => call.action === action && !call.indexName);
      return (
        onItems.length > 0 && onItems.every((call) => call.leadingKeys?.every((key) => key === ID_BLOCKS_PARTITION))
      );
    });
    const unread = (access.indexes ?? []).flatMap((action) =>
      TABLE_DEFINITIONS[table].indexes
        .filter((index) => !own.some((call) => call.action === action && call.indexName === index.indexName))
        .map((index) => `${action} on index ${index.indexName}`),
    );
    return [
      ...itemWide.map((action) => ({
        function: who,
        line: `${who} is declared ${action} on every ${table} item, but its recorded calls touch only ${ID_BLOCKS_PARTITION}: declare it under idBlocksItem`,
      })),
      ...unread.map((what) => ({ function: who, line: `${who} is declared ${what}, which no recorded call makes` })),
    ];
  });
};
