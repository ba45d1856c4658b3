import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { DynamoDBRecord } from 'aws-lambda';
import { readSetting } from '../../shared/config';
import { bookEventOf } from '../../shared/events/book-event';
import { bookEventNames } from '../../shared/events/names';
import { entryOf } from '../../shared/events/put-events';
import { publishInOrder, type Unpublished } from '../../shared/events/stream-publication';
import { logger } from '../../shared/observability/logger';
import { countUnpublishedChangeEvents } from '../../shared/observability/metrics';
import { timeLimited } from '../../shared/store/dynamodb-client';

let client: EventBridgeClient | undefined;

/** The container's EventBridge client, with the DynamoDB client's time limits (a silent endpoint fails, not hangs). */
const eventBridgeClient = (): EventBridgeClient => {
  client ??= new EventBridgeClient(timeLimited());
  return client;
};

/** The events function's composition root: a batch of stream records mapped by the shared mapping and put on the bus. */
export const publishChanges = async (records: readonly DynamoDBRecord[]): Promise<Unpublished> => {
  const names = bookEventNames();
  const bus = readSetting('eventBusName');
  const unpublished = await publishInOrder(eventBridgeClient(), records, (record) => {
    const event = bookEventOf(record, names);
    return event && entryOf(event, bus);
  });
  for (const [sequenceNumber, error] of unpublished)
    logger.error('change event not published', { sequenceNumber, error });
  countUnpublishedChangeEvents(unpublished.size);
  return unpublished;
};
