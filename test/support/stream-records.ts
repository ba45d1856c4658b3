import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Book } from '../../shared/books/types';
import { bookKey, isbnClaimKey, toBookItem } from '../../shared/store/books/book-items';
import { newBook } from './books';

/**
 * Stream records of the books table as Lambda delivers them (NEW_AND_OLD_IMAGES), of items as the
 * store writes them (toBookItem), numbered in stream order.
 */
let sequence = 100;
export const book = (id: number, title: string): Book => ({ ...newBook('9780306406157', { title }), id });
const image = (item: object) => marshall(item, { removeUndefinedValues: true }) as never;

/** One record as Lambda delivers it from the books table's stream. */
const change = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  keys: object,
  before?: object,
  after?: object,
): DynamoDBRecord => {
  sequence += 1;
  return {
    eventID: `event-${sequence}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:123456789012:table/books/stream/2026-11-28T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: 1_764_288_000 + sequence,
      Keys: image(keys),
      ...(after && { NewImage: image(after) }),
      ...(before && { OldImage: image(before) }),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 512,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};
export const created = (b: Book) => change('INSERT', bookKey(b.id), undefined, toBookItem(b, 1));
export const updated = (b: Book, version: number, title: string) =>
  change('MODIFY', bookKey(b.id), toBookItem(b, version - 1), toBookItem({ ...b, title }, version));
export const deleted = (b: Book, version: number) => change('REMOVE', bookKey(b.id), toBookItem(b, version));
export const isbnClaim = () =>
  change('INSERT', isbnClaimKey('9780306406157'), undefined, { ...isbnClaimKey('9780306406157'), bookId: 1 });
