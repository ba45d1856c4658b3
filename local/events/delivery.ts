import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HTTP } from 'cloudevents';
import type { BookEvent } from '../../shared/events/book-event';

export const DEAD_LETTER_FILE = 'events-dead-letter.jsonl';

/** Where and how stubbornly `npm start` delivers change events (LOCAL_EVENTS_URL and its budget). */
export interface DeliveryOptions {
  url: string;
  /** Attempts per event, the first included, before it goes to the dead-letter file. */
  attempts: number;
  /** The wait after the first failure; each further one doubles it, up to MAX_BACKOFF_MS. */
  firstBackoffMs: number;
}

const MAX_BACKOFF_MS = 10_000;
/** A receiver that neither answers nor refuses within this time has failed the attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** One attempt's failure, as the log and the dead-letter file say it. */
class AttemptFailedError extends Error {
  override readonly name = 'AttemptFailedError';
}

/** One POST in the CloudEvents HTTP binding's structured mode: the whole event as the JSON body. */
const post = async (url: string, event: BookEvent, stopped: AbortSignal): Promise<void> => {
  const { headers, body } = HTTP.structured(event);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: headers as Record<string, string>,
      body: body as string,
      signal: AbortSignal.any([stopped, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
    });
  } catch (error) {
    if (stopped.aborted) throw error;
    throw new AttemptFailedError(`${url} unreachable: ${(error as Error).cause ?? (error as Error).message}`, {
      cause: error,
    });
  }
  await response.body?.cancel();
  if (!response.ok) throw new AttemptFailedError(`${url} answered ${response.status}`);
};

/**
 * Delivers one event, retrying with doubling waits; after the last attempt it appends the event to
 * the dead-letter file (JSON lines in DATA_DIR) and logs it. Events go one at a time, so a later
 * change never overtakes one still being retried. Throws only when `stopped` aborts it: the event
 * is then neither delivered nor dead-lettered, and the next start delivers it again.
 */
export const deliver = async (
  event: BookEvent,
  options: DeliveryOptions,
  dataDir: string,
  stopped: AbortSignal,
  log: (line: string) => void,
): Promise<'delivered' | 'dead-lettered'> => {
  let failure = '';
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    if (attempt > 1)
      await sleep(Math.min(options.firstBackoffMs * 2 ** (attempt - 2), MAX_BACKOFF_MS), undefined, {
        signal: stopped,
      });
    try {
      await post(options.url, event, stopped);
      return 'delivered';
    } catch (error) {
      if (!(error instanceof AttemptFailedError)) throw error;
      failure = error.message;
      if (attempt === 1) log(`Change event ${event.id} not delivered (${failure}); retrying`);
    }
  }
  deadLetter(dataDir, { reason: failure, attempts: options.attempts, event }, log);
  return 'dead-lettered';
};

/** Appends one entry to the dead-letter file and says so: what failed, and where it is kept. */
export const deadLetter = (
  dataDir: string,
  entry: { reason: string; attempts?: number; event?: BookEvent; record?: unknown },
  log: (line: string) => void,
) => {
  const file = join(dataDir, DEAD_LETTER_FILE);
  appendFileSync(file, `${JSON.stringify({ deadLetteredAt: new Date().toISOString(), ...entry })}\n`);
  const what = entry.event ? `Change event ${entry.event.id} (${entry.event.type})` : 'A stream record';
  const tries = entry.attempts ? ` after ${entry.attempts} attempts` : '';
  log(`${what} dead-lettered${tries}: ${entry.reason}; kept in ${file}`);
};
