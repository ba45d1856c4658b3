import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * One DynamoDB stream record, as far as the mapping reads it: the shape of a Lambda trigger's
 * `DynamoDBRecord` and of the Streams API's `GetRecords` alike (images in attribute-value JSON; the
 * record's time in epoch seconds from Lambda, a Date from the SDK).
 */
export interface ChangeRecord {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | (string & {});
  dynamodb?: {
    Keys?: Record<string, object>;
    NewImage?: Record<string, object>;
    OldImage?: Record<string, object>;
    SequenceNumber?: string;
    ApproximateCreationDateTime?: number | Date;
  };
}

/** A stream record the mapping cannot read: a book's change without the image it needs, or without a time. */
export class UnreadableChangeRecordError extends Error {
  override readonly name = 'UnreadableChangeRecordError';
  constructor(
    message: string,
    readonly eventID: string | undefined,
    options?: ErrorOptions,
  ) {
    super(`${message} (stream record ${eventID ?? 'without an id'})`, options);
  }
}

/** An image (or the keys) as plain values; undefined when the record has none. */
export const plainImage = (image: Record<string, object> | undefined): Record<string, unknown> | undefined =>
  image && unmarshall(image as Record<string, AttributeValue>);

/** The record's time (whole seconds on AWS and Dynoxide) as ISO-8601 UTC with milliseconds, as the Book's timestamps. */
export const recordTime = (record: ChangeRecord): string => {
  const time = record.dynamodb?.ApproximateCreationDateTime;
  if (time === undefined)
    throw new UnreadableChangeRecordError('a removal without ApproximateCreationDateTime', record.eventID);
  return (time instanceof Date ? time : new Date(time * 1000)).toISOString();
};
