import { setTimeout as sleep } from 'node:timers/promises';
import { type EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';

/** At most this many entries in one PutEvents request (an EventBridge quota). */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/** The wait before each attempt: none before the first, then doubling (a refused entry is mostly throttled). */
const ATTEMPT_WAITS_MS = [0, 100, 200] as const;

/** The fields of a CloudEvent an EventBridge entry is made of. */
export interface PublishableEvent {
  source: string;
  type: string;
  time?: string;
  toJSON(): Record<string, unknown>;
}

/** An entry EventBridge still refused after every attempt, with the code of its last refusal. */
export class EventNotPublishedError extends Error {
  override readonly name = 'EventNotPublishedError';
  constructor(
    readonly errorCode: string,
    errorMessage: string | undefined,
    options?: ErrorOptions,
  ) {
    super(
      `EventBridge refused the event after ${ATTEMPT_WAITS_MS.length} attempts: ${errorCode} ${errorMessage ?? ''}`.trim(),
      options,
    );
  }
}

/** The entry of one CloudEvent: `source` and `detail-type` from the event, the whole event (structured JSON) as `detail`. */
export const entryOf = (event: PublishableEvent, eventBusName: string): PutEventsRequestEntry => ({
  EventBusName: eventBusName,
  Source: event.source,
  DetailType: event.type,
  Detail: JSON.stringify(event.toJSON()),
  ...(event.time && { Time: new Date(event.time) }),
});

/**
 * Puts up to PUT_EVENTS_MAX_ENTRIES entries and resends only those EventBridge refused (a
 * response's FailedEntryCount), ATTEMPT_WAITS_MS.length times at most. Each entry's outcome, in
 * the order given: undefined once accepted, else why not. A request that fails as a whole (the SDK
 * has retried it already) rejects: the caller cannot know which entries, if any, were accepted.
 */
export const putEvents = async (
  client: EventBridgeClient,
  entries: readonly PutEventsRequestEntry[],
): Promise<(EventNotPublishedError | undefined)[]> => {
  if (entries.length > PUT_EVENTS_MAX_ENTRIES)
    throw new RangeError(`${entries.length} entries in one PutEvents request`);
  const outcomes: (EventNotPublishedError | undefined)[] = entries.map(() => undefined);
  let pending = entries.map((_, index) => index);
  for (const wait of ATTEMPT_WAITS_MS) {
    if (pending.length === 0) break;
    await sleep(wait);
    const response = await client.send(
      new PutEventsCommand({ Entries: pending.map((index) => entries[index] as PutEventsRequestEntry) }),
    );
    const refused = pending.flatMap((index, position) => {
      const result = response.Entries?.[position];
      if (result?.EventId && !result.ErrorCode) return [];
      outcomes[index] = new EventNotPublishedError(result?.ErrorCode ?? 'NoResultEntry', result?.ErrorMessage);
      return [index];
    });
    for (const index of pending) if (!refused.includes(index)) outcomes[index] = undefined;
    pending = refused;
  }
  return outcomes;
};
