import { CloudEvent } from 'cloudevents';
import type { Book } from '../books/types';
import { isBookKey, toBook } from '../store/books/book-items';
import {
  BOOK_VERSION_ATTRIBUTE,
  type BookChangeKind,
  type BookEventNames,
  bookEventId,
  bookEventType,
} from './event-types';
import { type ChangeRecord, plainImage, recordTime, UnreadableChangeRecordError } from './stream-record';

/** A book's change as a CloudEvent: the Book as GET returns it (for a deletion, as it was), its version as `bookversion`. */
export type BookEvent = CloudEvent<Book> & { [BOOK_VERSION_ATTRIBUTE]: number };

interface VersionedImage {
  book: Book;
  version: number;
}

const versionedImage = (image: Record<string, object> | undefined, record: ChangeRecord, which: string) => {
  const item = plainImage(image);
  if (!item)
    throw new UnreadableChangeRecordError(
      `a book's change without its ${which} (the stream must be NEW_AND_OLD_IMAGES)`,
      record.eventID,
    );
  return { book: toBook(item as unknown as Book), version: Number(item.version) };
};

/** Nothing a client can see moved: the Book and its version are the same (a rewrite with equal values, a migration). */
const unchanged = (before: VersionedImage, after: VersionedImage) =>
  before.version === after.version && JSON.stringify(before.book) === JSON.stringify(after.book);

const changeOf = (record: ChangeRecord): { kind: BookChangeKind; image: VersionedImage; time?: string } | undefined => {
  const { NewImage, OldImage } = record.dynamodb ?? {};
  switch (record.eventName) {
    case 'INSERT':
      return { kind: 'created', image: versionedImage(NewImage, record, 'new image') };
    case 'MODIFY': {
      const after = versionedImage(NewImage, record, 'new image');
      return unchanged(versionedImage(OldImage, record, 'old image'), after)
        ? undefined
        : { kind: 'updated', image: after };
    }
    case 'REMOVE': {
      // The deletion is the book's next change: a consumer that ignores versions it has seen ignores no deletion.
      const { book, version } = versionedImage(OldImage, record, 'old image');
      const time = [recordTime(record), book.updatedAt].sort().at(-1) as string;
      return { kind: 'deleted', image: { book, version: version + 1 }, time };
    }
    default:
      throw new UnreadableChangeRecordError(`an unknown eventName "${record.eventName}"`, record.eventID);
  }
};

/**
 * The event one stream record publishes, or undefined when it publishes nothing: an item that is
 * not a book (ISBN claim, id blocks, end mark, Idempotency-Key record) or a write that changed
 * nothing a client sees. Pure: the same record always gives the same event.
 */
export const bookEventOf = (record: ChangeRecord, names: BookEventNames): BookEvent | undefined => {
  if (!isBookKey(plainImage(record.dynamodb?.Keys) ?? {})) return undefined;
  const change = changeOf(record);
  if (!change) return undefined;
  const { kind, image } = change;
  try {
    return new CloudEvent<Book>({
      specversion: '1.0',
      id: bookEventId(image.book.id, image.version, kind),
      type: bookEventType(names, kind),
      source: names.source,
      subject: String(image.book.id),
      time: change.time ?? image.book.updatedAt,
      datacontenttype: 'application/json',
      data: image.book,
      [BOOK_VERSION_ATTRIBUTE]: image.version,
    }) as BookEvent;
  } catch (error) {
    // A stored book the CloudEvents rules refuse (a malformed timestamp): kept aside, never published half-valid.
    throw new UnreadableChangeRecordError(`its event is not valid: ${(error as Error).message}`, record.eventID, {
      cause: error,
    });
  }
};
