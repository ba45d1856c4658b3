import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BookNotFoundError, PreconditionFailedError } from '../../books/errors';
import type { BookChange } from '../../books/ports';
import { failedPrecondition, type VersionCondition } from '../../books/preconditions';
import type { VersionedBook } from '../../books/types';
import { isConditionalCheckFailure, isTransactionConflict } from '../errors';
import { LostRace, retryOnConflict } from '../retry';
import { type BookItem, bookKey, changedAttributes } from './book-items';
import type { BookStoreContext } from './book-store-context';
import type { BookTransactions } from './book-transactions';
import { itemAsItWas, updateExpression, versionConditions, versioned } from './update-expressions';

/**
 * One conditional UpdateItem of the changed attributes. On failure DynamoDB returns the item as it
 * was, which tells a missing book (404) from a changed one (412) from a moving ISBN without a read;
 * only a moving ISBN costs a second call, the transaction that moves its claim.
 */
export const updateBook = (
  context: BookStoreContext,
  transactions: BookTransactions,
  id: number,
  change: BookChange,
  condition?: VersionCondition,
): Promise<VersionedBook> => {
  const { client, tableName } = context;
  const attributes = changedAttributes(id, change);
  return retryOnConflict(`Book ${id}`, async () => {
    const conditions = ['attribute_exists(pk)'];
    const values: Record<string, unknown> = {};
    if (attributes.isbnKey !== undefined) {
      conditions.push('isbnKey = :isbnKey');
      values[':isbnKey'] = attributes.isbnKey;
    }
    conditions.push(...versionConditions(condition, values));
    try {
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: bookKey(id),
          ...updateExpression(attributes, conditions, values),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return versioned(Attributes as BookItem);
    } catch (error) {
      if (isTransactionConflict(error)) return new LostRace(error);
      if (!isConditionalCheckFailure(error)) throw error;
      const current = itemAsItWas<BookItem>(error);
      if (!current) throw new BookNotFoundError(id, { cause: error });
      const failed = failedPrecondition(current.version, condition);
      if (failed) throw new PreconditionFailedError(id, current.version, failed, { cause: error });
      // The conditions were checked against this very item: only the ISBN can be what failed.
      return transactions.moveIsbn(current, attributes);
    }
  });
};
