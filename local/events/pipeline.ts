import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { bookEventOf } from '../../shared/events/book-event';
import type { BookEventNames } from '../../shared/events/event-types';
import { UnreadableChangeRecordError } from '../../shared/events/stream-record';
import { ChangeStream } from './change-stream';
import { type DeliveryOptions, deadLetter, deliver } from './delivery';
import { readPosition, savePosition } from './position';

/** How long the reader waits when the stream had nothing new (Lambda's poller reads a shard about 4 times a second). */
const IDLE_WAIT_MS = 100;
/** How long it waits after a failed read before trying again. */
const READ_RETRY_MS = 1_000;

export interface EventPipelineOptions {
  endpoint: string;
  tableName: string;
  dataDir: string;
  delivery: DeliveryOptions;
  names: BookEventNames;
  log: (line: string) => void;
}

export interface EventPipeline {
  /** Stops reading; an event still being retried is left for the next start (its position is not saved). */
  stop(): Promise<void>;
  /** Events delivered and dead-lettered since the start (the bench reads them). */
  readonly counts: { delivered: number; deadLettered: number };
}

/**
 * `npm start`'s stand-in for the stream-triggered function on AWS: it reads the books table's stream
 * in order, maps each record with the same shared code, delivers the event (local/events/delivery.ts)
 * and then saves the record's position in DATA_DIR, so a restart resumes after it: at least once, in order.
 */
export const startEventPipeline = async (options: EventPipelineOptions): Promise<EventPipeline> => {
  const { dataDir, log } = options;
  mkdirSync(dataDir, { recursive: true });
  const stream = await ChangeStream.open(options.endpoint, options.tableName, readPosition(dataDir));
  log(
    `Change events: POSTed to ${options.delivery.url}, read from the ${options.tableName} table's stream ${stream.where}`,
  );
  const stopping = new AbortController();
  const counts = { delivered: 0, deadLettered: 0 };
  let lastDone: string | undefined;

  const handle = async (record: _Record) => {
    let event: ReturnType<typeof bookEventOf>;
    try {
      event = bookEventOf(record, options.names);
    } catch (error) {
      if (!(error instanceof UnreadableChangeRecordError)) throw error;
      deadLetter(dataDir, { reason: error.message, record }, log);
      counts.deadLettered++;
    }
    if (event) {
      const outcome = await deliver(event, options.delivery, dataDir, stopping.signal, log);
      counts[outcome === 'delivered' ? 'delivered' : 'deadLettered']++;
    }
    lastDone = record.dynamodb?.SequenceNumber;
    if (lastDone) savePosition(dataDir, { streamArn: stream.streamArn, sequenceNumber: lastDone });
  };

  const run = async () => {
    while (!stopping.signal.aborted) {
      let records: _Record[];
      try {
        records = await stream.read();
      } catch (error) {
        log(`Change events: reading the stream failed (${(error as Error).message}); trying again`);
        await sleep(READ_RETRY_MS, undefined, { signal: stopping.signal });
        await stream.resumeAfter(lastDone).catch(() => undefined);
        continue;
      }
      for (const record of records) await handle(record);
      if (records.length === 0) await sleep(IDLE_WAIT_MS, undefined, { signal: stopping.signal });
    }
  };
  const running = run().catch((error: Error) => {
    if (!stopping.signal.aborted) log(`Change events stopped: ${error.stack ?? error.message}`);
  });

  return {
    counts,
    stop: async () => {
      stopping.abort();
      await running;
      stream.close();
    },
  };
};
