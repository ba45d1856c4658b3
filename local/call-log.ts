import { appendFileSync } from 'node:fs';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { settingText } from '../shared/config';
import { observeDynamoClients } from '../shared/store/dynamodb-client';
import { AUTH_TABLE, BOOKS_TABLE, type TableDefinition } from '../shared/store/tables';
import { runningFunction } from './running-function';

/**
 * Every DynamoDB call a function makes under `npm start`, as IAM authorises it, appended as one JSON
 * line to the file DYNAMODB_CALL_LOG names (`npm run test:permissions` sets it), so that the calls
 * the test suites make can be checked against the roles the stack grants (test/tools/check-permissions.ts).
 * Local only: the functions' bundles never carry it (test/infra/bundling.test.ts).
 */
export interface RecordedCall {
  /** The function (route name) that made the call; absent for a test's or a tool's own calls. */
  function?: string;
  /** The IAM action, `dynamodb:UpdateItem`. */
  action: string;
  /** Which of the service's tables, by the functions' settings; undefined for any other table. */
  table?: TableKind;
  tableName: string;
  indexName?: string;
  /** The partition key values the call touches (IAM's `dynamodb:LeadingKeys`), when the call names them. */
  leadingKeys?: string[];
}

export type TableKind = 'books' | 'auth';

const DEFINITIONS: Record<TableKind, TableDefinition> = { books: BOOKS_TABLE, auth: AUTH_TABLE };

/** The service's table names as configured now (the test suites change them between servers). */
const configuredTables = (): Partial<Record<TableKind, string>> => ({
  books: settingText('booksTableName'),
  auth: settingText('authTableName'),
});

/**
 * Which of the service's tables a name is: by the names configured when the client was made (a
 * function keeps those, as a container does) or now.
 */
const tableKind = (tableName: string, atStart: Partial<Record<TableKind, string>>): TableKind | undefined => {
  const now = configuredTables();
  return (Object.keys(DEFINITIONS) as TableKind[]).find(
    (kind) => atStart[kind] === tableName || now[kind] === tableName,
  );
};

/** A key's text, in DynamoDB's form (`{ S: 'x' }`) or the document client's (`'x'`), which the hook may see. */
type KeyValue = AttributeValue | string | undefined;
const textOf = (value: KeyValue): string | undefined => (typeof value === 'string' ? value : value?.S);

/** The value of the partition key in a key condition such as `#pk = :pk AND sk > :from`. */
const partitionOfQuery = (input: QueryInput, keyName: string): string | undefined => {
  for (const clause of (input.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const match = /^\s*\(?\s*(#?[\w.]+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(clause);
    if (!match) continue;
    const [, name = '', value = ''] = match;
    const attribute = name.startsWith('#') ? input.ExpressionAttributeNames?.[name] : name;
    if (attribute === keyName) return textOf(input.ExpressionAttributeValues?.[value]);
  }
  return undefined;
};

interface QueryInput {
  TableName?: string;
  IndexName?: string;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, KeyValue>;
}

type ItemInput = QueryInput & { Key?: Record<string, KeyValue>; Item?: Record<string, KeyValue> };

/** One call of `action` on one table, with the partition key it names (a Query's on the table or index). */
const callOn = (action: string, input: ItemInput, scope: CallScope): RecordedCall => {
  const tableName = input.TableName ?? '';
  const table = tableKind(tableName, scope.tables);
  const fn = scope.function;
  const definition = table && DEFINITIONS[table];
  const index = definition?.indexes.find((candidate) => candidate.indexName === input.IndexName);
  const keyName = (index ?? definition)?.partitionKey.name ?? '';
  const key = textOf(input.Key?.[keyName]) ?? textOf(input.Item?.[keyName]) ?? partitionOfQuery(input, keyName);
  return {
    ...(fn && { function: fn }),
    action: `dynamodb:${action}`,
    ...(table && { table }),
    tableName,
    ...(input.IndexName && { indexName: input.IndexName }),
    ...(key !== undefined && { leadingKeys: [key] }),
  };
};

/** Who makes a call, and the table names its client was made with. */
interface CallScope {
  function?: string | undefined;
  tables: Partial<Record<TableKind, string>>;
}

type TransactItem = Partial<Record<'Put' | 'Update' | 'Delete' | 'ConditionCheck', ItemInput>>;
const TRANSACT_ACTIONS = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/**
 * The calls as IAM sees them: TransactWriteItems is authorised per item action (AWS's DynamoDB
 * guide, "Using IAM with DynamoDB transactions"); a batch as one action per table with every key.
 */
const callsOf = (
  command: string,
  input: Record<string, unknown>,
  scope: CallScope = { tables: {} },
): RecordedCall[] => {
  const action = command.replace(/Command$/, '');
  if (action === 'TransactWriteItems') {
    return ((input.TransactItems ?? []) as TransactItem[]).flatMap((item) =>
      Object.entries(TRANSACT_ACTIONS).flatMap(([kind, itemAction]) => {
        const part = item[kind as keyof TransactItem];
        return part ? [callOn(itemAction, part, scope)] : [];
      }),
    );
  }
  if (action === 'BatchWriteItem' || action === 'BatchGetItem') {
    const requests = (input.RequestItems ?? {}) as Record<string, unknown>;
    return Object.keys(requests).map((tableName) => {
      const call = callOn(action, { TableName: tableName }, scope);
      const keys = (Array.isArray(requests[tableName]) ? (requests[tableName] as ItemRequest[]) : [])
        .map((request) => request.PutRequest?.Item ?? request.DeleteRequest?.Key)
        .map((key) => (call.table ? textOf(key?.[DEFINITIONS[call.table].partitionKey.name]) : undefined))
        .filter((key): key is string => key !== undefined);
      return keys.length > 0 ? { ...call, leadingKeys: [...new Set(keys)] } : call;
    });
  }
  return [callOn(action, input as ItemInput, scope)];
};

interface ItemRequest {
  PutRequest?: { Item?: Record<string, KeyValue> };
  DeleteRequest?: { Key?: Record<string, KeyValue> };
}

/**
 * Records each command the client sends to `file`, after the document client has turned it into
 * DynamoDB's own form (the serialize step), before it is sent.
 */
const recordCalls = (file: string) => (client: DynamoDBClient) => {
  const tables = configuredTables();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const scope = { function: runningFunction(), tables };
      const calls = callsOf(context.commandName ?? '', args.input as Record<string, unknown>, scope);
      appendFileSync(file, calls.map((call) => `${JSON.stringify(call)}\n`).join(''));
      return next(args);
    },
    { step: 'serialize', priority: 'high', name: 'recordDynamoDbCalls' },
  );
};

/** The DynamoDB client of every function `npm start` runs records its calls, when DYNAMODB_CALL_LOG names a file. */
let installed = false;
export const installCallLog = (file = process.env.DYNAMODB_CALL_LOG): void => {
  if (!file || installed) return;
  installed = true;
  observeDynamoClients(recordCalls(file));
};
