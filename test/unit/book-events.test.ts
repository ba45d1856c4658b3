import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Book } from '../../shared/books/types';
import { DEFAULTS } from '../../shared/config';
import { bookEventOf } from '../../shared/events/book-event';
import { bookEventNames } from '../../shared/events/names';
import { type ChangeRecord, UnreadableChangeRecordError } from '../../shared/events/stream-record';
import {
  bookKey,
  ID_BLOCKS_KEY,
  idempotencyRecordKey,
  isbnClaimKey,
  rangeMarkItem,
  toBookItem,
} from '../../shared/store/books/book-items';

const names = { typePrefix: 'org.example.catalogue', source: 'test-library' };

const created: Book = {
  id: 130,
  title: 'Dune',
  author: 'Frank Herbert',
  isbn: '978-0-441-01359-3',
  publicationYear: 1965,
  createdAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-01-02T03:04:05.678Z',
};
const renamed: Book = { ...created, title: 'Dune Messiah', updatedAt: '2026-01-03T00:00:00.000Z' };

/** A stored item in attribute-value JSON, as a stream image carries it (with the attributes clients never see). */
const image = (item: object) => marshall(item, { removeUndefinedValues: true });
const bookImage = (book: Book, version: number) => image({ ...toBookItem(book, version), createdBy: 'alice' });

/** A record as Lambda's trigger delivers it (time in epoch seconds); GetRecords gives a Date instead. */
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  keys: object,
  images: { NewImage?: object; OldImage?: object },
  approximate: number | Date = 1_767_400_000,
): ChangeRecord => ({
  eventID: `e-${eventName}`,
  eventName,
  dynamodb: {
    Keys: image(keys),
    ...(images as Pick<NonNullable<ChangeRecord['dynamodb']>, 'NewImage' | 'OldImage'>),
    SequenceNumber: '7',
    ApproximateCreationDateTime: approximate,
  },
});

const insert = record('INSERT', bookKey(130), { NewImage: bookImage(created, 1) });
const modify = record('MODIFY', bookKey(130), { OldImage: bookImage(created, 1), NewImage: bookImage(renamed, 2) });
const remove = record('REMOVE', bookKey(130), { OldImage: bookImage(renamed, 2) });

describe('a book’s change as a CloudEvent', () => {
  it('a created book: type, source, subject, time, the Book as GET returns it, its version', () => {
    expect(JSON.parse(JSON.stringify(bookEventOf(insert, names)))).toStrictEqual({
      specversion: '1.0',
      id: 'book-130-v1-created',
      type: 'org.example.catalogue.book.created',
      source: 'test-library',
      subject: '130',
      time: created.createdAt,
      datacontenttype: 'application/json',
      data: created,
      bookversion: 1,
    });
  });

  it('carries only the Book’s own fields, in the contract’s order (no keys, index keys, version or writer)', () => {
    expect(Object.keys(bookEventOf(insert, names)?.data ?? {})).toStrictEqual([
      'id',
      'title',
      'author',
      'isbn',
      'publicationYear',
      'createdAt',
      'updatedAt',
    ]);
  });

  it('an updated book: the Book after the change, at its updatedAt, with the new version', () => {
    const event = bookEventOf(modify, names);
    expect(event).toMatchObject({
      type: 'org.example.catalogue.book.updated',
      time: renamed.updatedAt,
      bookversion: 2,
    });
    expect(event?.data).toStrictEqual(renamed);
    expect(event?.id).toBe('book-130-v2-updated');
  });

  it('a deleted book: the Book as it was, at the stream record’s time, from Lambda’s seconds or the SDK’s Date', () => {
    const event = bookEventOf(remove, names);
    expect(event).toMatchObject({ type: 'org.example.catalogue.book.deleted', subject: '130', bookversion: 3 });
    expect(event?.data).toStrictEqual(renamed);
    expect(event?.time).toBe('2026-01-03T00:26:40.000Z');
    const fromSdk = record(
      'REMOVE',
      bookKey(130),
      { OldImage: bookImage(renamed, 2) },
      new Date('2026-05-06T07:08:09Z'),
    );
    expect(bookEventOf(fromSdk, names)?.time).toBe('2026-05-06T07:08:09.000Z');
  });

  it('a deletion is newer than the change before it: one version more, and never earlier (stream times are whole seconds)', () => {
    const sameSecond = record('REMOVE', bookKey(130), { OldImage: bookImage(renamed, 2) }, new Date(renamed.updatedAt));
    const late = { ...renamed, updatedAt: '2026-01-03T00:00:00.600Z' };
    const truncated = record(
      'REMOVE',
      bookKey(130),
      { OldImage: bookImage(late, 2) },
      new Date('2026-01-03T00:00:00Z'),
    );
    expect(bookEventOf(sameSecond, names)).toMatchObject({ id: 'book-130-v3-deleted', bookversion: 3 });
    expect(bookEventOf(truncated, names)?.time).toBe(late.updatedAt);
  });

  it('gives the same id for a redelivered record and different ids for different changes', () => {
    expect(bookEventOf(structuredClone(modify), names)?.id).toBe(bookEventOf(modify, names)?.id);
    const ids = [insert, modify, remove].map((change) => bookEventOf(change, names)?.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('takes its names from EVENT_TYPE_PREFIX and EVENT_SOURCE, with defaults', () => {
    expect(bookEventOf(insert, bookEventNames({}))).toMatchObject({
      type: `${DEFAULTS.eventTypePrefix}.book.created`,
      source: DEFAULTS.eventSource,
    });
    const configured = bookEventNames({ EVENT_TYPE_PREFIX: 'net.shelf', EVENT_SOURCE: 'urn:shelf' });
    expect(bookEventOf(insert, configured)).toMatchObject({ type: 'net.shelf.book.created', source: 'urn:shelf' });
  });
});

describe('what publishes nothing', () => {
  it('a write that changes neither the Book nor its version (Dynoxide streams such rewrites)', () => {
    const rewrite = record('MODIFY', bookKey(130), {
      OldImage: bookImage(created, 1),
      NewImage: bookImage(created, 1),
    });
    expect(bookEventOf(rewrite, names)).toBeUndefined();
  });

  it('a change of attributes clients never see, the version kept (a migration step)', () => {
    const migrated = image({ ...toBookItem(created, 1), createdBy: 'bob' });
    const step = record('MODIFY', bookKey(130), { OldImage: bookImage(created, 1), NewImage: migrated });
    expect(bookEventOf(step, names)).toBeUndefined();
  });

  it('a write that keeps the Book but moves its version is an update (clients see the version as the ETag)', () => {
    const resaved = record('MODIFY', bookKey(130), {
      OldImage: bookImage(created, 1),
      NewImage: bookImage(created, 2),
    });
    expect(bookEventOf(resaved, names)).toMatchObject({ type: 'org.example.catalogue.book.updated', bookversion: 2 });
  });

  it('a step that changes what clients see but keeps the version is an update', () => {
    const step = record('MODIFY', bookKey(130), { OldImage: bookImage(created, 1), NewImage: bookImage(renamed, 1) });
    expect(bookEventOf(step, names)).toMatchObject({ data: renamed, bookversion: 1 });
  });

  it.each([
    ['an ISBN claim', isbnClaimKey(created.isbn), { bookId: 130 }],
    ['the id-blocks item', ID_BLOCKS_KEY, { highMark: 200, schemaVersion: 1 }],
    ['an end mark', rangeMarkItem(2), {}],
    ['an Idempotency-Key record', idempotencyRecordKey('alice', 'k1'), { bookId: 130, book: created, version: 1 }],
  ])('%s, whatever the change', (_, key, attributes) => {
    const item = image({ ...key, ...attributes });
    for (const change of [
      record('INSERT', key, { NewImage: item }),
      record('MODIFY', key, { OldImage: item, NewImage: item }),
      record('REMOVE', key, { OldImage: item }),
    ]) {
      expect(bookEventOf(change, names)).toBeUndefined();
    }
  });
});

describe('a record the mapping cannot read is an error, never a silent skip', () => {
  it.each([
    ['a book’s removal without its old image (a KEYS_ONLY stream)', record('REMOVE', bookKey(130), {})],
    [
      'a book’s update without its old image (a NEW_IMAGE stream)',
      record('MODIFY', bookKey(130), { NewImage: bookImage(renamed, 2) }),
    ],
    ['an unknown eventName', { ...insert, eventName: 'TRUNCATE' }],
    [
      'a stored book whose event CloudEvents refuses (a malformed updatedAt)',
      record('INSERT', bookKey(130), { NewImage: bookImage({ ...created, updatedAt: 'yesterday' }, 1) }),
    ],
  ])('%s', (_, unreadable) => {
    expect(() => bookEventOf(unreadable, names)).toThrow(UnreadableChangeRecordError);
  });

  /** What the function logs for the record before Lambda retries it and sends it to the dead-letter queue. */
  const errorOf = (unreadable: ChangeRecord) => {
    try {
      bookEventOf(unreadable, names);
    } catch (error) {
      return error as UnreadableChangeRecordError;
    }
    throw new Error('expected an UnreadableChangeRecordError');
  };

  it.each([
    [
      record('INSERT', bookKey(130), {}),
      "a book's change without its new image (the stream must be NEW_AND_OLD_IMAGES) (stream record e-INSERT)",
    ],
    [
      record('MODIFY', bookKey(130), { OldImage: bookImage(created, 1) }),
      "a book's change without its new image (the stream must be NEW_AND_OLD_IMAGES) (stream record e-MODIFY)",
    ],
    [
      record('MODIFY', bookKey(130), { NewImage: bookImage(renamed, 2) }),
      "a book's change without its old image (the stream must be NEW_AND_OLD_IMAGES) (stream record e-MODIFY)",
    ],
    [
      record('REMOVE', bookKey(130), {}),
      "a book's change without its old image (the stream must be NEW_AND_OLD_IMAGES) (stream record e-REMOVE)",
    ],
    [{ ...insert, eventName: 'TRUNCATE' }, 'an unknown eventName "TRUNCATE" (stream record e-INSERT)'],
    [
      { ...remove, eventID: undefined, dynamodb: { ...remove.dynamodb, ApproximateCreationDateTime: undefined } },
      'a removal without ApproximateCreationDateTime (stream record without an id)',
    ],
  ])('says what is missing and which record: %#', (unreadable, message) => {
    const error = errorOf(unreadable as ChangeRecord);
    expect(error.message).toBe(message);
    expect(error.name).toBe('UnreadableChangeRecordError');
  });

  it('keeps CloudEvents’ refusal of a stored book as the cause', () => {
    const malformed = record('INSERT', bookKey(130), {
      NewImage: bookImage({ ...created, updatedAt: 'yesterday' }, 1),
    });
    const error = errorOf(malformed);
    expect(error.message).toMatch(/^its event is not valid: .+ \(stream record e-INSERT\)$/s);
    expect(error.cause).toBeInstanceOf(Error);
  });
});
