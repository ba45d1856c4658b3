import {
  BOOK_CHANGE_KINDS,
  BOOK_VERSION_ATTRIBUTE,
  type BookChangeKind,
  type BookEventNames,
  bookEventType,
} from '../events/event-types';
import { schemas } from './schemas';

/** The media type of one event in the CloudEvents HTTP binding's structured mode. */
const CLOUDEVENTS_JSON = 'application/cloudevents+json';

const WHAT: Record<BookChangeKind, { title: string; data: string; time: string }> = {
  created: {
    title: 'A book was created',
    data: 'the book as GET returns it after the create',
    time: 'the book’s createdAt',
  },
  updated: {
    title: 'A book was replaced (PUT) or changed (PATCH)',
    data: 'the book as GET returns it after the change',
    time: 'the book’s updatedAt',
  },
  deleted: {
    title: 'A book was deleted',
    data: 'the book as it was before the delete',
    time: 'when DynamoDB recorded the delete (whole seconds), never before the book’s updatedAt',
  },
};

const messageName = (kind: BookChangeKind) => `book${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;

/** One CloudEvent as a JSON Schema: the attributes the service always sets, `data` the Book schema. */
const eventPayload = (names: BookEventNames, kind: BookChangeKind) => ({
  type: 'object',
  required: [
    'specversion',
    'id',
    'type',
    'source',
    'subject',
    'time',
    'datacontenttype',
    'data',
    BOOK_VERSION_ATTRIBUTE,
  ],
  properties: {
    specversion: { const: '1.0' },
    id: {
      type: 'string',
      description:
        'The same on every delivery of one change, different for every other change: deduplicate on source and id',
    },
    type: { const: bookEventType(names, kind) },
    source: { const: names.source },
    subject: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'The book’s id' },
    time: { type: 'string', format: 'date-time', description: WHAT[kind].time },
    datacontenttype: { const: 'application/json' },
    [BOOK_VERSION_ATTRIBUTE]: {
      type: 'integer',
      minimum: 1,
      description:
        'The book’s version after this change (its ETag derives from it; a deletion’s is one past the last): higher means newer, so a consumer ignores an event whose version it has already seen',
    },
    data: { $ref: '#/components/schemas/Book', description: WHAT[kind].data },
  },
});

/**
 * The AsyncAPI 3 description of the books' change events, served at /api/asyncapi.json: one message
 * per kind of change, each a CloudEvent whose `data` is the Book schema of the OpenAPI document (the
 * same valibot schema, converted the same way).
 */
export const buildAsyncApiDocument = (names: BookEventNames) => {
  const messages = Object.fromEntries(
    BOOK_CHANGE_KINDS.map((kind) => [
      messageName(kind),
      {
        name: bookEventType(names, kind),
        title: WHAT[kind].title,
        contentType: CLOUDEVENTS_JSON,
        payload: eventPayload(names, kind),
      },
    ]),
  );
  const references = Object.fromEntries(
    Object.keys(messages).map((name) => [name, { $ref: `#/components/messages/${name}` }]),
  );
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Book Library change events',
      version: '1.0.0',
      description:
        'Every successful create, replace, update and delete of a book, as one CloudEvents 1.0 event: at least once, in order per book. On AWS the events are on the stack’s EventBridge bus (source and detail-type from the event, detail the whole event); under npm start they are POSTed to LOCAL_EVENTS_URL in the HTTP binding’s structured mode. A refused request, an Idempotency-Key replay and a write that changes nothing publish nothing.',
    },
    defaultContentType: CLOUDEVENTS_JSON,
    channels: {
      bookChanges: {
        title: 'Book changes',
        description: 'The stack’s EventBridge bus on AWS; LOCAL_EVENTS_URL under npm start.',
        messages: references,
      },
    },
    operations: {
      publishBookChanges: {
        action: 'send',
        title: 'The service publishes each change of a book',
        channel: { $ref: '#/channels/bookChanges' },
        messages: Object.keys(messages).map((name) => ({ $ref: `#/channels/bookChanges/messages/${name}` })),
      },
    },
    components: { schemas: { Book: schemas().Book }, messages },
  };
};
