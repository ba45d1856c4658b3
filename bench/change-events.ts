import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marshall } from '@aws-sdk/util-dynamodb';
import { type EventPipeline, startEventPipeline } from '../local/events/pipeline';
import { readPosition } from '../local/events/position';
import { ensureTables, type TableNames } from '../local/tables';
import { BookService } from '../shared/books/book-service';
import { bookEventOf } from '../shared/events/book-event';
import { bookEventNames } from '../shared/events/names';
import { bookKey, toBookItem } from '../shared/store/books/book-items';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { startEventReceiver } from '../tools/event-receiver';
import { durationMs, dynamoCostPerMillion, lambdaCostPerMillion } from './cost';
import type { DynamoMeter } from './dynamodb-meter';

/** EventBridge custom events, per million 64 KB chunks of PutEvents entries (us-east-1, as cost.ts's prices). */
const PUT_EVENTS_PER_MILLION_CHUNKS = 1.0;
const PUT_EVENTS_CHUNK_BYTES = 64 * 1024;
/** The events function as h6's stack sets it up: 512 MB, batches of up to 100 records, PutEvents 10 entries a call. */
const EVENTS_FUNCTION = { memoryMb: 512, batchSize: 100, entriesPerPutEvents: 10 } as const;
/** An assumption, not a measurement: one PutEvents call from Lambda in the same region. */
const ASSUMED_PUT_EVENTS_MS = 20;

export interface ChangeEventsResult {
  changes: number;
  /** Events the receiver got for those changes (each create publishes one). */
  eventsReceived: number;
  eventsPerSecond: number;
  recordsPerChange: number;
  mapMicrosPerRecord: number;
  eventBytes: number;
  writeUnitsPerChange: number;
}

const timeIt = (run: () => void) => {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

/**
 * The local pipeline's throughput: `changes` creates through the real store (metered) while the
 * pipeline is stopped, then the time it takes to deliver them all to a receiver on this machine.
 */
export const measureChangeEvents = async (
  endpoint: string,
  meter: DynamoMeter,
  changes: number,
  log: (line: string) => void,
  names: TableNames = { books: 'bench-events-books', auth: 'bench-events-auth' },
): Promise<ChangeEventsResult> => {
  await ensureTables(createDynamoClient(endpoint), names);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-events-'));
  let delivered = 0;
  let eventBytes = 0;
  const receiver = await startEventReceiver({
    onEvent: (event) => {
      delivered++;
      eventBytes = Math.max(eventBytes, Buffer.byteLength(JSON.stringify(event)));
      return 204;
    },
  });
  const service = new BookService(
    new DynamoBookStore(createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS), names.books),
  );
  const book = (i: number) => ({
    title: `Event ${i}`,
    author: 'Bench',
    isbn: `bench-events-${i}`,
    publicationYear: 2000,
  });
  const pipelineOptions = {
    endpoint,
    tableName: names.books,
    dataDir,
    delivery: { url: receiver.url, attempts: 3, firstBackoffMs: 50 },
    names: bookEventNames({}),
    log: () => undefined,
  };
  // The pipeline's own count, not the receiver's: it grows in the step that saves the position, so a
  // stop right after cannot leave the last event to be delivered again on the next start.
  const waitFor = async (pipeline: EventPipeline, count: number) => {
    while (pipeline.counts.delivered < count) await new Promise((done) => setTimeout(done, 5));
  };
  try {
    // One change with the pipeline running saves a position; the rest are written while it is stopped.
    let pipeline = await startEventPipeline(pipelineOptions);
    await service.create(book(0));
    await waitFor(pipeline, 1);
    await pipeline.stop();
    const before = Number(readPosition(dataDir)?.sequenceNumber);
    meter.take();
    for (let i = 1; i <= changes; i++) {
      await service.create(book(i));
      if (i % 100 === 0) log(`  ${i} / ${changes} books written`);
    }
    const writeUnits = meter.take().reduce((sum, call) => sum + call.capacityUnits, 0);
    const start = performance.now();
    pipeline = await startEventPipeline(pipelineOptions);
    await waitFor(pipeline, changes);
    const seconds = (performance.now() - start) / 1000;
    await pipeline.stop();
    const eventsReceived = delivered - 1;
    const records = Number(readPosition(dataDir)?.sequenceNumber) - before;

    const item = marshall(
      toBookItem(
        { id: 1, ...book(1), createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
        1,
      ),
    );
    const record = { eventName: 'INSERT', dynamodb: { Keys: marshall(bookKey(1)), NewImage: item } } as const;
    const names2 = bookEventNames({});
    const runs = 20_000;
    const ms = timeIt(() => {
      for (let i = 0; i < runs; i++) bookEventOf(record, names2);
    });
    return {
      changes,
      eventsReceived,
      eventsPerSecond: changes / seconds,
      recordsPerChange: records / changes,
      mapMicrosPerRecord: (ms * 1000) / runs,
      eventBytes,
      writeUnitsPerChange: writeUnits / changes,
    };
  } finally {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

const dollars = (value: number) => `$${value.toFixed(2)}`;

/** The modelled cost per million creates on AWS, in dollars, from the measured figures. */
export const changeEventCosts = (result: ChangeEventsResult) => {
  const { memoryMb, batchSize, entriesPerPutEvents } = EVENTS_FUNCTION;
  const recordsPerMillion = 1e6 * result.recordsPerChange;
  const perBatchMs = (batch: number) =>
    durationMs((result.mapMicrosPerRecord * batch) / 1000, 0, memoryMb) +
    Math.ceil(batch / result.recordsPerChange / entriesPerPutEvents) * ASSUMED_PUT_EVENTS_MS;
  const chunks = Math.ceil(result.eventBytes / PUT_EVENTS_CHUNK_BYTES);
  return {
    writes: dynamoCostPerMillion(0, result.writeUnitsPerChange),
    lambdaFull: (recordsPerMillion / batchSize / 1e6) * lambdaCostPerMillion(perBatchMs(batchSize), memoryMb),
    lambdaSingle: lambdaCostPerMillion(perBatchMs(result.recordsPerChange), memoryMb),
    chunks,
    putEvents: chunks * PUT_EVENTS_PER_MILLION_CHUNKS,
  };
};

/** The measured figures and the modelled cost per million creates on AWS, as a markdown section. */
export const renderChangeEvents = (result: ChangeEventsResult): string => {
  const { memoryMb, batchSize } = EVENTS_FUNCTION;
  const { writes, lambdaFull, lambdaSingle, chunks, putEvents } = changeEventCosts(result);
  return [
    '### Change events',
    '',
    `Measured here: ${result.changes} creates written with the pipeline stopped, then their ${result.eventsReceived} events delivered by \`npm start\`'s`,
    `local pipeline (Dynoxide's stream, one POST per event to a receiver on this machine) at **${Math.round(result.eventsPerSecond)} events a second**;`,
    `${result.recordsPerChange.toFixed(2)} stream records per create (the book, its ISBN claim, id blocks and end marks);`,
    `mapping ${result.mapMicrosPerRecord.toFixed(1)} µs per record; the largest event ${result.eventBytes} bytes.`,
    '',
    '| per million creates on AWS (modelled)                                  | cost |',
    '| ---------------------------------------------------------------------- | ---- |',
    `| the writes themselves (${result.writeUnitsPerChange.toFixed(1)} write units each, measured)           | ${dollars(writes)} |`,
    '| stream reads by the Lambda trigger                                     | $0.00 |',
    `| events function, full batches of ${batchSize} (${memoryMb} MB, ${ASSUMED_PUT_EVENTS_MS} ms per PutEvents assumed)  | ${dollars(lambdaFull)} |`,
    `| events function, one change per invocation (light traffic)             | ${dollars(lambdaSingle)} |`,
    `| PutEvents (${chunks} × 64 KB chunk per event)                               | ${dollars(putEvents)} |`,
  ].join('\n');
};
