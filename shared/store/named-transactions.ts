import type { AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { cancellation } from './errors';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One write of a transaction, named for what it does, so its outcome is read by name and never by position. */
export interface NamedWrite<Name extends string> {
  name: Name;
  write: TransactItem;
}

/**
 * Why a transaction was cancelled: the names whose condition failed, and the item a failed
 * condition returned (ReturnValuesOnConditionCheckFailure) by name; or 'conflict' when it only met
 * another transaction. Any other error (throttling, validation, an outage) is rethrown.
 */
export type Cancellation<Name extends string> =
  | 'conflict'
  | { failed: (name: Name) => boolean; returned: (name: Name) => Record<string, AttributeValue> | undefined };

/** Writes the named items in one TransactWriteItems call, in the order given. */
export const transactWrite = async <Name extends string>(
  client: DynamoDBDocumentClient,
  writes: readonly NamedWrite<Name>[],
): Promise<void> => {
  await client.send(new TransactWriteCommand({ TransactItems: writes.map(({ write }) => write) }));
};

/** The cancellation of `writes`, DynamoDB's reasons (listed in the order of the request) zipped with the names. */
export const cancellationOf = <Name extends string>(
  error: unknown,
  writes: readonly NamedWrite<Name>[],
): Cancellation<Name> => {
  const outcome = cancellation(error, writes.length);
  if (outcome === 'conflict') return outcome;
  const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
  const position = new Map(writes.map(({ name }, i) => [name, i]));
  const at = (name: Name) => position.get(name) ?? -1;
  return {
    failed: (name) => outcome[at(name)] === true,
    returned: (name) => reasons[at(name)]?.Item,
  };
};
