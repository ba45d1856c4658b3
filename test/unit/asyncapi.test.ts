import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookEventOf } from '../../shared/events/book-event';
import { bookEventNames } from '../../shared/events/names';
import type { HttpResponse } from '../../shared/http/types';
import { buildAsyncApiDocument } from '../../shared/openapi/asyncapi';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { bookKey, toBookItem } from '../../shared/store/books/book-items';
import { asyncApiEventCheck, parseAsyncApi } from '../support/asyncapi';
import { contextFor, proxyEventFor } from '../support/proxy-event';

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

/**
 * The function invoked twice as the file loads, as on a cold start and a warm one: the document is
 * built outside any test, so mutation testing keeps the builder's mutants for the tests above.
 */
const serveAsyncApi = (await import('../../functions/asyncapi/handler')).handler as unknown as (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<HttpResponse>;
const asyncApiRequest = proxyEventFor({ method: 'GET', target: '/api/asyncapi.json' }) as APIGatewayProxyEvent;
const served = [
  await serveAsyncApi(asyncApiRequest, contextFor(asyncApiRequest)),
  await serveAsyncApi(asyncApiRequest, contextFor(asyncApiRequest)),
];
const configuredDocument = JSON.parse(JSON.stringify(buildAsyncApiDocument(bookEventNames())));

describe('the function that serves the AsyncAPI document', () => {
  it('answers GET with the document of the configured event names, the same on every invocation', () => {
    for (const response of served) {
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toStrictEqual(configuredDocument);
    }
  });
});
