import { type AttributeValue, QueryCommand as AttributeValueQueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Book } from '../../books/types';
import { BOOK_PROJECTION, bookFromAttributes, bookPartition, bookRangeOf } from './book-items';
import type { BookStoreContext } from './book-store-context';

interface Position {
  range: number;
  startKey?: Record<string, AttributeValue>;
}

export interface WalkOptions {
  /** Start after this id. */
  after?: number;
  /** Books wanted at most: each Query asks for what is still missing. Without it, `pageSize` a Query. */
  limit?: number;
  pageSize: number;
  /** With no limit (a whole list), the next Query is sent as soon as the current one answers. */
  readAhead: boolean;
}

/**
 * The unfiltered list: the id ranges from the cursor's range upward, one Query per range (more only
 * for a range past the page size). A range read to its end without its end mark is the last, so
 * the walk never reads the id-blocks item.
 */
export async function* rangePages(
  { client, tableName }: Pick<BookStoreContext, 'client' | 'tableName'>,
  options: WalkOptions,
): AsyncGenerator<Book[]> {
  const first = (options.after ?? 0) + 1;
  let position: Position = {
    range: bookRangeOf(first),
    ...(options.after !== undefined && {
      startKey: marshall({ pk: bookPartition(bookRangeOf(first)), sk: options.after }),
    }),
  };
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  const read = ({ range, startKey }: Position) => {
    const page = client.send(
      new AttributeValueQueryCommand({
        TableName: tableName,
        ConsistentRead: true,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: bookPartition(range) } },
        ...BOOK_PROJECTION,
        Limit: Math.min(remaining, options.pageSize),
        ...(startKey && { ExclusiveStartKey: startKey }),
      }),
    );
    page.catch(() => undefined); // a page read ahead for a caller that then stops is nobody's failure
    return page;
  };
  let pending: ReturnType<typeof read> | undefined;
  while (true) {
    pending ??= read(position);
    const { Items = [], LastEvaluatedKey } = await pending;
    pending = undefined;
    const books = Items.filter((item) => item.id !== undefined);
    const endMark = books.length < Items.length; // it sorts after every id of its range
    remaining -= books.length;
    const next: Position =
      LastEvaluatedKey && !endMark
        ? { range: position.range, startKey: LastEvaluatedKey }
        : { range: position.range + 1 };
    // The list goes on past a range only if its end mark came back (more of it if the page was cut).
    const goesOn = endMark || LastEvaluatedKey !== undefined;
    if (options.readAhead && remaining > 0 && goesOn) pending = read(next);
    yield books.map(bookFromAttributes);
    if (remaining <= 0 || !goesOn) return;
    position = next;
  }
}
