import type { Environment } from '../../shared/config';
import type { DeliveryOptions } from './delivery';

/** About 23 s of retrying (0.2 s, doubled each time, at most 10 s a wait) before an event is dead-lettered. */
export const DEFAULT_LOCAL_EVENT_DELIVERY = { attempts: 8, firstBackoffMs: 200 } as const;

/** A LOCAL_EVENTS_* variable `npm start` cannot use; the message names it. */
class EventDeliveryOptionError extends Error {
  override readonly name = 'EventDeliveryOptionError';
}

const positive = (name: string, raw: string | undefined, fallback: number) => {
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new EventDeliveryOptionError(`${name} "${raw}" is not valid: expected a positive whole number`);
  }
  return value;
};

/** LOCAL_EVENTS_URL and its retry budget; undefined when no URL is set (no events locally). */
export const parseEventDelivery = (env: Environment): DeliveryOptions | undefined => {
  const url = env.LOCAL_EVENTS_URL;
  const attempts = positive('LOCAL_EVENTS_ATTEMPTS', env.LOCAL_EVENTS_ATTEMPTS, DEFAULT_LOCAL_EVENT_DELIVERY.attempts);
  const firstBackoffMs = positive(
    'LOCAL_EVENTS_FIRST_RETRY_MS',
    env.LOCAL_EVENTS_FIRST_RETRY_MS,
    DEFAULT_LOCAL_EVENT_DELIVERY.firstBackoffMs,
  );
  if (!url) return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new EventDeliveryOptionError(
      `LOCAL_EVENTS_URL "${url}" is not valid: expected an http(s) URL such as http://127.0.0.1:4000/events`,
    );
  }
  return { url, attempts, firstBackoffMs };
};
