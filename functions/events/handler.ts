import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { publishChanges } from './wiring';

const processor = new BatchProcessor(EventType.DynamoDBStreams);

/**
 * Publishes a stream batch's change events, then lets Powertools report each record that did not
 * get out as a batch item failure (by sequence number), or fail the invocation when none did, so
 * that the event source mapping bisects the batch.
 */
export const handler = async (event: DynamoDBStreamEvent) => {
  const unpublished = await publishChanges(event.Records);
  const settle = async (record: DynamoDBRecord) => {
    const reason = unpublished.get(record.dynamodb?.SequenceNumber);
    if (reason) throw reason;
  };
  return processPartialResponse(event, settle, processor);
};
