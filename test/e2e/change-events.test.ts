import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEAD_LETTER_FILE } from '../../local/events/delivery';
import { DEFAULTS } from '../../shared/config';
import { createTestTables } from '../support/dynamodb';
import {
  call,
  type Delivery,
  type RecordingReceiver,
  recordingReceiver,
  servedEventCheck,
  startWithEvents,
  unreachableUrl,
  until,
} from '../support/event-pipeline';
import type { ServerProcess } from '../support/server-process';

/**
 * Change events end to end: `npm start` with LOCAL_EVENTS_URL reads the books table's stream on the
 * run's Dynoxide and POSTs each event to a real HTTP receiver; every event received is checked
 * against the AsyncAPI document the server serves.
 */
const TYPE = `${DEFAULTS.eventTypePrefix}.book`;
let isbnCount = 0;
const newBook = (title = 'Dune') => ({
  title,
  author: 'Frank Herbert',
  isbn: `events-${process.pid}-${++isbnCount}`,
  publicationYear: 1965,
});

const running: Array<{ stop: () => Promise<void> }> = [];
afterAll(async () => {
  for (const thing of running.reverse()) await thing.stop();
});

const serve = async (
  receiver: RecordingReceiver,
  env: Record<string, string> = {},
  names?: { books: string; auth: string },
) => {
  const server = await startWithEvents(
    inject('dynamoEndpoint'),
    names ?? (await createTestTables()).names,
    receiver.url,
    env,
  );
  running.push(server);
  return server;
};

const ofBook = (events: Delivery['event'][], id: number) => events.filter((event) => event.subject === String(id));

/** The dead-letter file's complete lines: the server appends from another process, so a read may see a line half-written. */
const deadLetterEntries = (dataDir: string): Record<string, unknown>[] => {
  const file = join(dataDir, DEAD_LETTER_FILE);
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
};
describe('with a receiver that accepts everything', () => {
  let receiver: RecordingReceiver;
  let server: ServerProcess;
  let check: Awaited<ReturnType<typeof servedEventCheck>>;

  beforeAll(async () => {
    receiver = await recordingReceiver();
    running.push({ stop: receiver.close });
    // A retry waits longer than the next change of a book takes to be written, so a reordering would show.
    server = await serve(receiver, { LOCAL_EVENTS_FIRST_RETRY_MS: '500' });
    check = await servedEventCheck(server.baseUrl);
  });

  it('publishes one event per create, replace, update and delete, as a structured-mode CloudEvent', async () => {
    const created = await call(server.baseUrl, 'POST', '/api/books', newBook());
    const id = created.body.id as number;
    const replaced = await call(server.baseUrl, 'PUT', `/api/books/${id}`, {
      ...newBook('Dune (revised)'),
      isbn: created.body.isbn,
    });
    const patched = await call(server.baseUrl, 'PATCH', `/api/books/${id}`, { publicationYear: 1966 });
    expect([created.status, replaced.status, patched.status]).toEqual([201, 200, 200]);
    const deleted = await call(server.baseUrl, 'DELETE', `/api/books/${id}`);
    expect(deleted.status).toBe(204);
    await until(() => ofBook(receiver.delivered(), id).length >= 4, 'four events');

    const events = ofBook(receiver.delivered(), id);
    expect(events.map((event) => [event.type, event.bookversion])).toEqual([
      [`${TYPE}.created`, 1],
      [`${TYPE}.updated`, 2],
      [`${TYPE}.updated`, 3],
      [`${TYPE}.deleted`, 4],
    ]);
    expect(events.map((event) => event.data)).toEqual([created.body, replaced.body, patched.body, patched.body]);
    expect(events.map((event) => event.time).slice(0, 3)).toEqual([
      created.body.createdAt,
      replaced.body.updatedAt,
      patched.body.updatedAt,
    ]);
    expect(Date.parse(events[3]?.time as string)).toBeGreaterThanOrEqual(Date.parse(patched.body.updatedAt));
    for (const event of events) {
      expect(event).toMatchObject({ specversion: '1.0', source: DEFAULTS.eventSource, subject: String(id) });
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(4);
    expect(new Set(receiver.deliveries.map((delivery) => delivery.contentType))).toEqual(
      new Set(['application/cloudevents+json; charset=utf-8']),
    );
    for (const event of receiver.delivered()) expect(check(event), event.id).toEqual([]);
  });

  it('publishes nothing for refused requests, Idempotency-Key replays, no-op writes or the items that are not books', async () => {
    const before = receiver.deliveries.length;
    const kept = await call(server.baseUrl, 'POST', '/api/books', newBook('Kept'));
    await until(() => receiver.deliveries.length > before, 'the create’s event');
    const from = receiver.deliveries.length;
    const id = kept.body.id as number;
    const etag = kept.headers.get('etag') as string;
    const refused = [
      await call(server.baseUrl, 'POST', '/api/books', { title: '' }), // 400
      await call(server.baseUrl, 'POST', '/api/books', { ...newBook(), isbn: kept.body.isbn }), // 409: ISBN taken
      await call(server.baseUrl, 'PATCH', `/api/books/${id}`, { title: 'x' }, { 'if-match': '"stale"' }), // 412
      await call(server.baseUrl, 'DELETE', '/api/books/999999999'), // 404
      await call(server.baseUrl, 'PUT', `/api/books/${id}`, '{"title":', {}), // 400: not JSON
    ];
    expect(refused.map((answer) => answer.status)).toEqual([400, 409, 412, 404, 400]);
    const noOp = await call(server.baseUrl, 'PATCH', `/api/books/${id}`, {}, { 'if-match': etag });
    expect(noOp.status).toBe(200);
    const keyed = newBook('Keyed');
    const first = await call(server.baseUrl, 'POST', '/api/books', keyed, { 'idempotency-key': '"k-1"' });
    const replay = await call(server.baseUrl, 'POST', '/api/books', keyed, { 'idempotency-key': '"k-1"' });
    expect([first.status, replay.status, replay.body.id]).toEqual([201, 201, first.body.id]);
    // The stream is read in order: once the last write's event is in, every earlier record was handled.
    const marker = await call(server.baseUrl, 'POST', '/api/books', newBook('Marker'));
    await until(() => receiver.deliveries.some((d) => d.event.subject === String(marker.body.id)), 'the marker');

    const since = receiver.deliveries.slice(from).map((d) => [d.event.type, d.event.subject]);
    expect(since).toEqual([
      [`${TYPE}.created`, String(first.body.id)],
      [`${TYPE}.created`, String(marker.body.id)],
    ]);
  });

  it('keeps each book’s events in the order of its changes under concurrent writes to many books, retries included', async () => {
    const books = 8;
    const changes = 4;
    // Each book's third event fails once: a later change must not overtake it while it waits for its retry.
    const failedOnce = new Set<string>();
    receiver.state.answer = (event) => {
      if (event.bookversion !== 3 || failedOnce.has(event.id)) return 204;
      failedOnce.add(event.id);
      return 500;
    };
    const ids = await Promise.all(
      Array.from(
        { length: books },
        async (_, b) => (await call(server.baseUrl, 'POST', '/api/books', newBook(`B${b}`))).body.id as number,
      ),
    );
    await Promise.all(
      ids.map(async (id) => {
        for (let c = 1; c <= changes; c++) {
          const answer = await call(server.baseUrl, 'PATCH', `/api/books/${id}`, { title: `change ${c}` });
          expect(answer.status).toBe(200);
        }
      }),
    );
    await until(
      () => ids.every((id) => ofBook(receiver.delivered(), id).length === changes + 1),
      'every book’s events',
    );
    expect(failedOnce.size).toBe(books);
    for (const id of ids) {
      const events = ofBook(receiver.delivered(), id);
      expect(events.map((event) => event.bookversion)).toEqual([1, 2, 3, 4, 5]);
      expect(events.map((event) => (event.data as { title: string }).title)).toEqual([
        expect.stringMatching(/^B\d$/),
        'change 1',
        'change 2',
        'change 3',
        'change 4',
      ]);
    }
    for (const event of receiver.delivered()) expect(check(event), event.id).toEqual([]);
  });
});

describe('when the receiver fails', () => {
  it('retries a failed delivery with the very same event (same id), in order', async () => {
    const receiver = await recordingReceiver();
    running.push({ stop: receiver.close });
    const attempted = new Set<string>();
    receiver.state.answer = (event) => {
      if (attempted.has(event.id)) return 204;
      attempted.add(event.id);
      return 500;
    };
    const server = await serve(receiver);
    const created = await call(server.baseUrl, 'POST', '/api/books', newBook());
    await call(server.baseUrl, 'PATCH', `/api/books/${created.body.id}`, { title: 'Again' });
    await until(() => receiver.delivered().length === 2, 'both events delivered');
    const [first, second, third, fourth] = receiver.deliveries;
    expect(receiver.deliveries.map((d) => [d.event.type, d.status])).toEqual([
      [`${TYPE}.created`, 500],
      [`${TYPE}.created`, 204],
      [`${TYPE}.updated`, 500],
      [`${TYPE}.updated`, 204],
    ]);
    expect(second?.event).toEqual(first?.event);
    expect(fourth?.event).toEqual(third?.event);
    const check = await servedEventCheck(server.baseUrl);
    for (const { event } of receiver.deliveries) expect(check(event)).toEqual([]);
  });

  it('dead-letters an event after the retry budget, logs it, and goes on with the next one', async () => {
    const receiver = await recordingReceiver();
    running.push({ stop: receiver.close });
    let refusedBook = '';
    receiver.state.answer = (event) => (event.subject === refusedBook ? 503 : 204);
    const server = await serve(receiver, { LOCAL_EVENTS_ATTEMPTS: '3' });
    const refused = await call(server.baseUrl, 'POST', '/api/books', newBook('Refused'));
    refusedBook = String(refused.body.id);
    const next = await call(server.baseUrl, 'POST', '/api/books', newBook('Next'));
    await until(() => receiver.delivered().some((event) => event.subject === String(next.body.id)), 'the next event');

    expect(receiver.deliveries.map((d) => [d.event.subject, d.status])).toEqual([
      [refusedBook, 503],
      [refusedBook, 503],
      [refusedBook, 503],
      [String(next.body.id), 204],
    ]);
    const entries = deadLetterEntries(server.dataDir);
    expect(entries).toHaveLength(1);
    const entry = entries[0] ?? {};
    expect(entry).toMatchObject({ attempts: 3, reason: expect.stringContaining('answered 503') });
    expect(entry.event).toEqual(receiver.deliveries[0]?.event);
    expect(server.output()).toMatch(
      new RegExp(`Change event book-${refusedBook}-v1-created .*dead-lettered after 3 attempts`),
    );
    const check = await servedEventCheck(server.baseUrl);
    for (const { event } of receiver.deliveries) expect(check(event)).toEqual([]);
  });

  it('dead-letters the event when the receiver is unreachable, after retrying it', async () => {
    const server = await serve({ url: await unreachableUrl() } as RecordingReceiver, { LOCAL_EVENTS_ATTEMPTS: '2' });
    const created = await call(server.baseUrl, 'POST', '/api/books', newBook('Unheard'));
    await until(() => deadLetterEntries(server.dataDir).length > 0, 'a dead-letter entry');
    const [entry = {}] = deadLetterEntries(server.dataDir);
    expect(entry).toMatchObject({ attempts: 2, reason: expect.stringContaining('unreachable') });
    expect(entry.event).toMatchObject({ type: `${TYPE}.created`, subject: String(created.body.id) });
  });

  it('keeps an undelivered event across a restart, then delivers it with the same id, once; nothing delivered is sent again', async () => {
    const tables = (await createTestTables()).names;
    const receiver = await recordingReceiver();
    running.push({ stop: receiver.close });
    receiver.state.answer = () => 500;
    const down = await serve(receiver, { LOCAL_EVENTS_ATTEMPTS: '1000' }, tables);
    const created = await call(down.baseUrl, 'POST', '/api/books', newBook('Waiting'));
    await until(() => receiver.deliveries.length > 0, 'a failed attempt');
    await down.stop();
    expect(existsSync(join(down.dataDir, DEAD_LETTER_FILE))).toBe(false);
    const failed = receiver.deliveries[0]?.event;

    receiver.state.answer = () => 204;
    const again = await serve(receiver, { DATA_DIR: down.dataDir }, tables);
    await until(() => receiver.delivered().length === 1, 'the kept event');
    expect(receiver.delivered()[0]).toEqual(failed); // mapped again from the stream: the same event, the same id
    const later = await call(again.baseUrl, 'POST', '/api/books', newBook('Later'));
    await until(() => receiver.delivered().length === 2, 'the next event');
    await again.stop();

    const third = await serve(receiver, { DATA_DIR: down.dataDir }, tables);
    const last = await call(third.baseUrl, 'POST', '/api/books', newBook('Last'));
    await until(() => receiver.delivered().some((event) => event.subject === String(last.body.id)), 'the last event');
    expect(receiver.delivered().map((event) => event.subject)).toEqual(
      [created, later, last].map((answer) => String(answer.body.id)),
    );
    const check = await servedEventCheck(third.baseUrl);
    for (const { event } of receiver.deliveries) expect(check(event)).toEqual([]);
  });
});
