import { type Environment, readSetting } from '../config';
import type { BookEventNames } from './event-types';

/** The event names this deployment publishes under, from its settings (EVENT_TYPE_PREFIX, EVENT_SOURCE). */
export const bookEventNames = (env?: Environment): BookEventNames => ({
  typePrefix: readSetting('eventTypePrefix', env),
  source: readSetting('eventSource', env),
});
