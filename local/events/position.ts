import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The last stream record the local pipeline has finished with (delivered, dead-lettered or skipped). */
export interface StreamPosition {
  streamArn: string;
  sequenceNumber: string;
}

const POSITION_FILE = 'events-position.json';

export const readPosition = (dataDir: string): StreamPosition | undefined => {
  try {
    return JSON.parse(readFileSync(join(dataDir, POSITION_FILE), 'utf8')) as StreamPosition;
  } catch {
    return undefined; // none yet (or unreadable): the pipeline starts at the stream's end
  }
};

/** Written whole and renamed into place, so a stop at any moment leaves the old position or the new one. */
export const savePosition = (dataDir: string, position: StreamPosition): void => {
  const file = join(dataDir, POSITION_FILE);
  writeFileSync(`${file}.next`, `${JSON.stringify(position)}\n`);
  renameSync(`${file}.next`, file);
};
