import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookEventOf } from '../../shared/events/book-event';
import { buildAsyncApiDocument } from '../../shared/openapi/asyncapi';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { bookKey, toBookItem } from '../../shared/store/books/book-items';
import { asyncApiEventCheck, parseAsyncApi } from '../support/asyncapi';

const names = { typePrefix: 'org.example.catalogue', source: 'test-library' };
const document = buildAsyncApiDocument(names);

const book = {
  id: 7,
  title: 'Kindred',
  author: 'Octavia E. Butler',
  isbn: '978-0-8070-8305-4',
  publicationYear: 1979,
  createdAt: '2026-01-02T03:04:05.678Z',
  updatedAt: '2026-01-02T03:04:05.678Z',
};
const image = marshall(toBookItem(book, 1));
const inserted = {
  eventID: '1',
  eventName: 'INSERT',
  dynamodb: { Keys: marshall(bookKey(7)), NewImage: image },
} as const;

describe('the AsyncAPI document of the change events', () => {
  let verdict: Awaited<ReturnType<typeof parseAsyncApi>>;
  beforeAll(async () => {
    verdict = await parseAsyncApi(document); // the parser takes seconds: once for the file
  });

  it('parses with @asyncapi/parser without errors', () => {
    expect(verdict.errors).toEqual([]);
  });

  it('has one message per kind of change, named by its CloudEvents type', () => {
    const messageNames = verdict.parsed
      ?.messages()
      .all()
      .map((message) => message.name());
    expect(messageNames).toEqual([
      'org.example.catalogue.book.created',
      'org.example.catalogue.book.updated',
      'org.example.catalogue.book.deleted',
    ]);
  });

  it('describes data with the OpenAPI document’s Book schema, derived from the one valibot schema', () => {
    expect(document.components.schemas.Book).toStrictEqual(
      (buildOpenApiDocument({ publicReads: false }).components as { schemas: Record<string, unknown> }).schemas.Book,
    );
  });

  it('accepts the event the mapping makes, and refuses one whose data is not a Book or whose type is unknown', async () => {
    const check = await asyncApiEventCheck(document);
    const event = JSON.parse(JSON.stringify(bookEventOf(inserted, names)));
    expect(check(event)).toEqual([]);
    expect(check({ ...event, data: { ...event.data, publicationYear: 'soon' } })).not.toEqual([]);
    expect(check({ ...event, bookversion: undefined })).not.toEqual([]);
    expect(check({ ...event, type: 'org.example.catalogue.book.lent' })).toEqual([
      'no message for type org.example.catalogue.book.lent',
    ]);
  });
});
