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
  /** The id-blocks item was read for this walk already: where ids end is known, no second read. */
  idBlocksRead: boolean;
}

/**
 * The unfiltered list in the range layout: the id ranges from the cursor's range upward, one Query
 * per range (more only for a range whose books pass the page size), so a page of neighbours is one
 * Query, two at a range boundary. The walk ends at the range of the highest id reserved: up to the
 * high mark this container knows it needs no call; past it, one strongly consistent read of the
 * counter says whether others reserved more (a walk reads it at most once). On a table whose every
 * opened range has its end mark (book-items.ts, rangeMarkKey), the walk never reads the counter: a
 * range read to its end without its mark is the last, so a page is one Query, two at a range
 * boundary, the last page included. An empty range (a busy container's range, reserved and then left
 * unused as the container ended) costs a Query that returns only its mark; docs/data-model.md
 * bounds how many there can be.
 */
export async function* rangePages(context: BookStoreContext, options: WalkOptions): AsyncGenerator<Book[]> {
  const { client, tableName, layout } = context;
  const first = (options.after ?? 0) + 1;
  let position: Position = {
    range: bookRangeOf(first),
    ...(options.after !== undefined && {
      startKey: marshall({ pk: bookPartition(bookRangeOf(first)), sk: options.after }),
    }),
  };
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let idBlocksRead = options.idBlocksRead;
  const lastRange = () => bookRangeOf(layout.knownHighMark);
  // Once every opened range has its end mark, a range read to its end says itself whether the list goes on.
  const marked = layout.rangeMarks;
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
    if (!pending) {
      if (!marked && position.range > lastRange()) {
        if (idBlocksRead) return;
        await layout.refresh(context);
        idBlocksRead = true;
        if (position.range > lastRange()) return;
      }
      pending = read(position);
    }
    const { Items = [], LastEvaluatedKey } = await pending;
    pending = undefined;
    const books = Items.filter((item) => item.id !== undefined);
    const endMark = books.length < Items.length; // it sorts after every id of its range
    remaining -= books.length;
    const next: Position =
      LastEvaluatedKey && !endMark
        ? { range: position.range, startKey: LastEvaluatedKey }
        : { range: position.range + 1 };
    // Marked: the list goes on past a range only if its end mark came back (more of it if the page was cut).
    const goesOn = marked ? endMark || LastEvaluatedKey !== undefined : next.range <= lastRange();
    if (options.readAhead && remaining > 0 && goesOn) pending = read(next);
    yield books.map(bookFromAttributes);
    if (remaining <= 0 || (marked && !goesOn)) return;
    position = next;
  }
}
