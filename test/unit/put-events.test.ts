import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { entryOf, PUT_EVENTS_MAX_ENTRIES, putEvents } from '../../shared/events/put-events';

/** The PutEvents quota and the entry of one CloudEvent (the resends are tested against a stand-in: change-events-handler). */
describe('PutEvents', () => {
  it('refuses more entries than one request may carry, before sending anything', async () => {
    const entries: PutEventsRequestEntry[] = Array.from({ length: PUT_EVENTS_MAX_ENTRIES + 1 }, () => ({}));
    const unused = {} as EventBridgeClient;
    await expect(putEvents(unused, entries)).rejects.toThrow(new RangeError('11 entries in one PutEvents request'));
  });

  it('an entry carries the event’s time, when it has one', () => {
    const event = { source: 's', type: 't', toJSON: () => ({ id: 1 }) };
    expect(entryOf({ ...event, time: '2026-01-02T03:04:05.678Z' }, 'bus')).toStrictEqual({
      EventBusName: 'bus',
      Source: 's',
      DetailType: 't',
      Detail: '{"id":1}',
      Time: new Date('2026-01-02T03:04:05.678Z'),
    });
    expect(entryOf(event, 'bus')).not.toHaveProperty('Time');
  });
});
