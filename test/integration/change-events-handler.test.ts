import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EventBridgeStandin, type ReceivedEntry, startEventBridgeStandin } from '../support/eventbridge-standin';
import { captureLogs } from '../support/log-capture';
import { book, created, deleted, isbnClaim, updated } from '../support/stream-records';

/**
 * The events function's real handler, with its real SDK client, against a local PutEvents stand-in
 * over HTTP (there is no EventBridge emulator), fed stream records shaped as Lambda delivers them
 * from a NEW_AND_OLD_IMAGES stream of items the store writes.
 */
const BUS = 'book-library-test';
let standin: EventBridgeStandin;
let handler: (
  event: DynamoDBStreamEvent,
  context: Context,
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

beforeAll(async () => {
  standin = await startEventBridgeStandin();
  vi.stubEnv('EVENT_BUS_NAME', BUS);
  vi.stubEnv('AWS_ENDPOINT_URL_EVENTBRIDGE', standin.endpoint);
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false'); // the unpublished count is checked
  ({ handler } = await import('../../functions/events/handler'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await standin.close();
});
beforeEach(() => {
  standin.requests.length = 0;
  standin.accepted.length = 0;
  standin.judge = () => 'accept';
});

const invoke = (records: DynamoDBRecord[]) =>
  handler({ Records: records }, { functionName: 'events', awsRequestId: 'test' } as unknown as Context);
const detailOf = (entry: ReceivedEntry) => JSON.parse(entry.Detail) as Record<string, any>;
const sequenceOf = (record: DynamoDBRecord) => record.dynamodb?.SequenceNumber as string;
const failuresOf = (...records: DynamoDBRecord[]) => records.map((record) => ({ itemIdentifier: sequenceOf(record) }));
/** The accepted events of one book, as "type version" in the order the bus took them. */
const historyOf = (id: number) =>
  standin.accepted
    .map(detailOf)
    .filter((event) => event.subject === String(id))
    .map((event) => `${event.type.split('.').at(-1)} v${event.bookversion}`);

describe('the change-events function (real handler, real SDK, PutEvents stand-in)', () => {
  it('puts one entry per book change on the bus: source and detail-type from the CloudEvent, the whole event as detail', async () => {
    const first = book(1, 'First');
    const records = [created(first), isbnClaim(), updated(first, 2, 'Second'), deleted(first, 2)];
    expect(await invoke(records)).toEqual({ batchItemFailures: [] });

    expect(standin.accepted).toHaveLength(3); // the ISBN claim is no book: nothing
    for (const entry of standin.accepted) {
      const event = detailOf(entry);
      expect(entry).toMatchObject({ EventBusName: BUS, Source: event.source, DetailType: event.type });
      expect(event).toMatchObject({ specversion: '1.0', subject: '1', datacontenttype: 'application/json' });
    }
    expect(historyOf(1)).toEqual(['created v1', 'updated v2', 'deleted v3']); // a deletion is one version past the last change
    expect(detailOf(standin.accepted[1] as ReceivedEntry).data).toMatchObject({ id: 1, title: 'Second' });
  });

  it('sends at most ten entries and at most one change per book in a request, so a book’s changes leave in order', async () => {
    const books = [1, 2, 3].map((id) => book(id, `Book ${id}`));
    const records = books.flatMap((b) => [created(b)]);
    for (let version = 2; version <= 8; version++)
      records.push(...books.map((b) => updated(b, version, `v${version}`)));
    records.push(...[4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((id) => created(book(id, `Book ${id}`))));
    expect(await invoke(records)).toEqual({ batchItemFailures: [] });

    expect(standin.accepted).toHaveLength(records.length);
    for (const request of standin.requests) {
      expect(request.length).toBeLessThanOrEqual(10);
      const subjects = request.map((entry) => detailOf(entry).subject);
      expect(new Set(subjects).size).toBe(subjects.length);
    }
    for (const b of books) {
      expect(historyOf(b.id)).toEqual(['created v1', ...[2, 3, 4, 5, 6, 7, 8].map((v) => `updated v${v}`)]);
    }
  });

  it('resends only the entries EventBridge refused, after 100 ms then 200 ms, and reports nothing when a resend got them through', async () => {
    const [a, b] = [book(1, 'A'), book(2, 'B')];
    const records = [created(a), created(b)];
    standin.judge = (entry, seen) =>
      detailOf(entry).subject === '1' && seen < 3 ? { errorCode: 'ThrottlingException' } : 'accept';
    const started = performance.now();
    expect(await invoke(records)).toEqual({ batchItemFailures: [] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);

    expect(standin.requests.map((request) => request.map((entry) => detailOf(entry).subject))).toEqual([
      ['1', '2'],
      ['1'],
      ['1'],
    ]);
    expect(historyOf(1)).toEqual(['created v1']);
  });

  it('after three refusals reports the record, and holds back that book’s later changes, reporting them too', async () => {
    const [a, b] = [book(1, 'A'), book(2, 'B')];
    const aCreated = created(a);
    const bCreated = created(b);
    const aUpdated = updated(a, 2, 'A2');
    const bUpdated = updated(b, 2, 'B2');
    standin.judge = (entry) => (detailOf(entry).subject === '1' ? { errorCode: 'InternalFailure' } : 'accept');

    expect(await invoke([aCreated, bCreated, aUpdated, bUpdated])).toEqual({
      batchItemFailures: failuresOf(aCreated, aUpdated),
    });
    const sentForA = standin.requests.flat().filter((entry) => detailOf(entry).subject === '1');
    expect(sentForA.map((entry) => detailOf(entry).bookversion)).toEqual([1, 1, 1]); // v2 never sent
    expect(historyOf(2)).toEqual(['created v1', 'updated v2']);
  });

  it('sends nothing more after a request failed as a whole, reporting every record from there on', async () => {
    const books = Array.from({ length: 25 }, (_, index) => book(index + 1, `Book ${index + 1}`));
    const records = books.map(created);
    standin.judge = (entry) => (detailOf(entry).subject === '11' ? { requestStatus: 500 } : 'accept');

    expect(await invoke(records)).toEqual({ batchItemFailures: failuresOf(...records.slice(10)) });
    expect(standin.accepted).toHaveLength(10);
    // The first request, then the second as the SDK tried it (3 attempts); the third never left.
    expect(standin.requests.map((request) => detailOf(request[0] as ReceivedEntry).subject)).toEqual([
      '1',
      '11',
      '11',
      '11',
    ]);
  });

  it('sends no request for a batch without a book change, and reports nothing', async () => {
    expect(await invoke([isbnClaim(), isbnClaim()])).toEqual({ batchItemFailures: [] });
    expect(standin.requests).toEqual([]);
  });

  it('fails the invocation when no record got out, so the event source mapping bisects the batch', async () => {
    standin.judge = () => ({ requestStatus: 500 });
    await expect(invoke([created(book(1, 'A')), created(book(2, 'B'))])).rejects.toThrow(/All records failed/);
  });

  describe('logs each record it did not publish, with why', () => {
    const logs = captureLogs();
    afterAll(() => logs.restore());
    /** The error each unpublished record was logged with, by sequence number. */
    const loggedErrors = () =>
      new Map(
        logs
          .errors()
          .filter((line) => line.message === 'change event not published')
          .map((line) => [line.sequenceNumber as string, line.error as { name: string; message: string }]),
      );

    it('a record it cannot read, and that book’s later changes, held back; the other books go out', async () => {
      logs.clear();
      const [a, b] = [book(1, 'A'), book(2, 'B')];
      const aCreated = created(a);
      const unreadable = { ...aCreated, dynamodb: { ...aCreated.dynamodb, NewImage: undefined } };
      const aUpdated = updated(a, 2, 'A2');
      const bCreated = created(b);
      expect(await invoke([unreadable, aUpdated, bCreated])).toEqual({
        batchItemFailures: failuresOf(unreadable, aUpdated),
      });
      expect(historyOf(2)).toEqual(['created v1']);
      expect(logs.lines.filter((line) => '_aws' in line).map((line) => line.UnpublishedChangeEvents)).toEqual([2]);
      const errors = loggedErrors();
      expect(errors.get(sequenceOf(unreadable))).toMatchObject({
        name: 'UnreadableChangeRecordError',
        message: expect.stringContaining('without its new image'),
      });
      expect(errors.get(sequenceOf(aUpdated))).toMatchObject({
        name: 'EarlierChangeNotPublishedError',
        message: expect.stringMatching(/^an earlier change of item \{.+\} was not published$/),
      });
    });

    it('an entry EventBridge refused three times, with its code and message', async () => {
      logs.clear();
      standin.judge = (entry) => (detailOf(entry).subject === '1' ? { errorCode: 'InternalFailure' } : 'accept');
      const refused = created(book(1, 'A'));
      await invoke([refused, created(book(2, 'B'))]);
      expect(loggedErrors().get(sequenceOf(refused))).toMatchObject({
        name: 'EventNotPublishedError',
        message: 'EventBridge refused the event after 3 attempts: InternalFailure refused by the stand-in',
      });
    });

    it('a refusal without a message by its code alone, and an entry the answer left out as NoResultEntry', async () => {
      logs.clear();
      standin.judge = (entry) =>
        detailOf(entry).subject === '1' ? { errorCode: 'InternalFailure', errorMessage: null } : 'no result';
      const [quiet, missing] = [created(book(1, 'A')), created(book(2, 'B'))];
      await expect(invoke([quiet, missing])).rejects.toThrow(/All records failed/);
      expect(loggedErrors().get(sequenceOf(quiet))?.message).toBe(
        'EventBridge refused the event after 3 attempts: InternalFailure',
      );
      expect(loggedErrors().get(sequenceOf(missing))?.message).toBe(
        'EventBridge refused the event after 3 attempts: NoResultEntry',
      );
    });

    it('every record after a request that failed as a whole', async () => {
      logs.clear();
      standin.judge = (entry) => (detailOf(entry).subject === '2' ? { requestStatus: 500 } : 'accept');
      const a = book(1, 'A');
      const [first, later, second] = [created(a), updated(a, 2, 'A2'), created(book(2, 'B'))];
      expect(await invoke([first, later, second])).toEqual({ batchItemFailures: failuresOf(later, second) });
      expect(loggedErrors().get(sequenceOf(second))).toMatchObject({
        name: 'PutEventsRequestError',
        message: 'PutEvents failed; nothing more of this batch was sent',
        cause: expect.objectContaining({ message: expect.any(String) }),
      });
      expect(loggedErrors().has(sequenceOf(first))).toBe(false);
    });
  });
});
