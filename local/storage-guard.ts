import { type Stats, statfsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATABASE_FILE } from './dynoxide';

/*
 * Dynoxide keeps writing to its open database file after the file or its folder is deleted, and
 * answers a full disk with a generic error: both would let npm start acknowledge writes it then
 * loses or fails. The guard lets the local gateway refuse writes first, with one line saying why.
 */

/** Why writes are refused now; `lasting` when only a restart can help. */
interface StorageRefusal {
  reason: string;
  lasting: boolean;
}

export interface StorageGuard {
  /** The refusal that holds now, or undefined while writes can be stored. */
  refusal(): StorageRefusal | undefined;
  /** After a write failed: the refusal that explains it, counting a disk that is merely nearly full. */
  refusalAfterFailure(): StorageRefusal | undefined;
  /** Stops the periodic check. */
  stop(): void;
}

export interface StorageGuardOptions {
  /** Writes are refused while the data folder's file system has less free than this. */
  reserveBytes?: number;
  /** How often the guard looks without waiting for a write, so the line comes at once. */
  intervalMs?: number;
  /** Told once per refusal, in one line. */
  log: (line: string) => void;
}

/** Room for a few of the largest writes and their log; a full disk makes SQLite fail a write midway. */
const DEFAULT_RESERVE_BYTES = 16 * 1024 * 1024;
/** Free space below which a failed write is put down to the disk even with no reserve asked for. */
const NEARLY_FULL_BYTES = 1024 * 1024;

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;

/** The local gateway's answer to a write while the guard refuses: nothing was stored, try later. */
export const STORAGE_REFUSED_MESSAGE =
  'The service cannot store writes at the moment; nothing was written, try again later';
export const STORAGE_RETRY_AFTER_SECONDS = 60;

const statOrUndefined = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

const freeBytes = (folder: string): number | undefined => {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
};

/** Watches the database file npm start's Dynoxide has open in `dataDir`; call once the database runs. */
export const guardStorage = (dataDir: string, options: StorageGuardOptions): StorageGuard => {
  const folder = resolve(dataDir);
  const file = join(folder, DATABASE_FILE);
  const reserve = options.reserveBytes ?? DEFAULT_RESERVE_BYTES;
  const original = statOrUndefined(file);
  let gone: StorageRefusal | undefined;
  let told: string | undefined;

  const tell = (refusal: StorageRefusal | undefined) => {
    if (refusal && refusal.reason !== told) options.log(`error: ${refusal.reason}`);
    if (!refusal && told) options.log(`The data folder ${folder} has room again: writes are accepted.`);
    told = refusal?.reason;
    return refusal;
  };

  const lost = (): StorageRefusal | undefined => {
    const now = statOrUndefined(file);
    if (original && now && sameFile(original, now)) return undefined;
    gone = {
      reason:
        `the data folder ${folder} or its database file ${DATABASE_FILE} was removed while npm start ran: ` +
        'writes are refused from now on, as they could not be kept. Stop npm start and start it again.',
      lasting: true,
    };
    return gone;
  };

  const full = (below: number): StorageRefusal | undefined => {
    const free = freeBytes(folder);
    if (free === undefined || free >= below) return undefined;
    return {
      reason: `the disk of the data folder ${folder} is full: writes are refused until there is room.`,
      lasting: false,
    };
  };

  const nearlyFull = Math.max(reserve, NEARLY_FULL_BYTES);
  // Once a disk was found full, it counts as full until it has the larger room again (no flapping).
  const refusal = () => tell(gone ?? lost() ?? full(told ? nearlyFull : reserve));
  const timer = setInterval(refusal, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    refusal,
    refusalAfterFailure: () => tell(gone ?? lost() ?? full(nearlyFull)),
    stop: () => clearInterval(timer),
  };
};
