import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PUT_EVENTS_MAX_ENTRIES, putEvents } from './put-events';

/** One stream record as this module reads it: its sequence number and its item's key. */
export interface SequencedRecord {
  dynamodb?: { SequenceNumber?: string; Keys?: Record<string, unknown> };
}

/** Held back, not sent: an earlier change of the same item was not published, and consumers must see a book's changes in order. */
class EarlierChangeNotPublishedError extends Error {
  override readonly name = 'EarlierChangeNotPublishedError';
}

/** The PutEvents request that carried the record's event failed as a whole. */
class PutEventsRequestError extends Error {
  override readonly name = 'PutEventsRequestError';
}

/** What publishing a batch of records left undone: why, by sequence number (Lambda always sends one). */
export type Unpublished = Map<string | undefined, Error>;

const sequenceOf = (record: SequencedRecord) => record.dynamodb?.SequenceNumber;
/** A book's item key stands for the book: its changes must leave in the order the stream holds them. */
const itemOf = (record: SequencedRecord) => JSON.stringify(record.dynamodb?.Keys ?? {});

/**
 * Publishes the events of a batch of stream records (in stream order) to EventBridge and returns
 * the records whose event did not get there. `entryOf` gives a record's entry, undefined for a
 * record that publishes nothing, or throws for one it cannot map. A request holds at most one change
 * per item, so a book's later change is never sent before its earlier one was accepted; once a
 * change of an item fails, that item's later changes are held back and fail too (Lambda resends
 * from the lowest failed sequence number, in order). After a request that failed as a whole,
 * nothing more is sent.
 */
export const publishInOrder = async <R extends SequencedRecord>(
  client: EventBridgeClient,
  records: readonly R[],
  entryOf: (record: R) => PutEventsRequestEntry | undefined,
): Promise<Unpublished> => {
  const unpublished: Unpublished = new Map();
  const failedItems = new Set<string>();
  let request: { record: R; entry: PutEventsRequestEntry }[] = [];
  let brokenRequest: Error | undefined;

  const fail = (record: R, error: Error) => {
    unpublished.set(sequenceOf(record), error);
    failedItems.add(itemOf(record));
  };
  const send = async () => {
    const sending = request;
    request = [];
    if (brokenRequest) {
      for (const { record } of sending) fail(record, brokenRequest);
      return;
    }
    try {
      const outcomes = await putEvents(
        client,
        sending.map(({ entry }) => entry),
      );
      sending.forEach(({ record }, index) => {
        const refused = outcomes[index];
        if (refused) fail(record, refused);
      });
    } catch (error) {
      brokenRequest = new PutEventsRequestError('PutEvents failed; nothing more of this batch was sent', {
        cause: error,
      });
      for (const { record } of sending) fail(record, brokenRequest);
    }
  };

  for (const record of records) {
    const item = itemOf(record);
    if (request.some((queued) => itemOf(queued.record) === item) || request.length === PUT_EVENTS_MAX_ENTRIES)
      await send();
    if (failedItems.has(item)) {
      fail(record, new EarlierChangeNotPublishedError(`an earlier change of item ${item} was not published`));
      continue;
    }
    let entry: PutEventsRequestEntry | undefined;
    try {
      entry = entryOf(record);
    } catch (error) {
      fail(record, error instanceof Error ? error : new Error(String(error)));
      continue;
    }
    if (entry) request.push({ record, entry });
  }
  await send();
  return unpublished;
};
