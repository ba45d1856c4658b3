import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailure } from '../errors';
import { ID_BLOCKS_KEY } from './book-items';
import type { BookStoreContext } from './book-store-context';

/**
 * How long a count that reached the list cap stands for the whole unfiltered list (seconds). Only
 * deletes can make it wrong (the catalogue shrank under the cap meanwhile), and then only in the
 * safe direction: a client is told to page a list it could have had whole, for at most this long.
 * A verdict of "within the cap" is never remembered: the list must never send a 200 it cannot finish.
 */
export const LIST_COUNT_REMEMBERED_SECONDS = 60;

/** On the id-blocks item: the last count of the unfiltered list that reached its limit, and when. */
interface RememberedListCount {
  listCount?: unknown;
  listCountedAt?: unknown;
}

/** Whether the id-blocks item's verdict says, freshly, that the unfiltered list holds at least `upTo` books. */
export const rememberedCountReaches = (
  idBlocks: RememberedListCount | undefined,
  upTo: number,
  nowSeconds: number,
): boolean =>
  Number(idBlocks?.listCount ?? 0) >= upTo &&
  nowSeconds - Number(idBlocks?.listCountedAt ?? 0) <= LIST_COUNT_REMEMBERED_SECONDS;

/**
 * The unfiltered list counted up to `upTo`, decided once: a verdict on the id-blocks item that
 * the list reached `upTo` answers for LIST_COUNT_REMEMBERED_SECONDS without a count (one read). When it has
 * expired, the container whose conditional write renews it first does the count (the others keep
 * answering from the renewed verdict meanwhile), then records what it found: the new count if it
 * still reaches `upTo`, else no verdict.
 */
export const countAndRemember = async (
  context: BookStoreContext,
  upTo: number,
  count: () => Promise<number>,
): Promise<number> => {
  const { client, tableName } = context;
  const idBlocks = (await context.idBlocks.refresh(context)).item as RememberedListCount | undefined;
  const now = context.nowSeconds();
  if (rememberedCountReaches(idBlocks, upTo, now)) return upTo;
  const held = Number(idBlocks?.listCount ?? 0) >= upTo;
  if (held) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: ID_BLOCKS_KEY,
          UpdateExpression: 'SET listCountedAt = :now',
          ConditionExpression: 'listCountedAt = :then',
          ExpressionAttributeValues: { ':now': now, ':then': idBlocks?.listCountedAt },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return upTo; // another container renewed it and is counting
    }
  }
  const counted = await count();
  if (counted >= upTo || held) {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: ID_BLOCKS_KEY,
        ...(counted >= upTo
          ? {
              UpdateExpression: 'SET listCount = :count, listCountedAt = :now',
              ExpressionAttributeValues: { ':count': counted, ':now': context.nowSeconds() },
            }
          : { UpdateExpression: 'REMOVE listCount, listCountedAt' }),
      }),
    );
  }
  return counted;
};
