import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalDatabase } from './dynoxide';
import { endpointFile } from './endpoint-file';
import { acceptsConnections } from './ports';

/** Beside the endpoint file: the process id of the `npm start` that serves the folder. */
const pidFile = (dataDir: string) => join(dataDir, 'npm-start.pid');
/** And that of the database it started, for an operator looking for it. */
const databasePidFile = (dataDir: string) => join(dataDir, 'dynoxide.pid');

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** A database that an earlier start on the same data folder left answering. */
export class StaleDatabaseError extends Error {
  override readonly name = 'StaleDatabaseError';
  constructor(dataDir: string, endpoint: string, pid: number | undefined) {
    super(
      pid !== undefined && isRunning(pid)
        ? `another npm start (process ${pid}) already serves ${dataDir}, its database at ${endpoint}; two cannot share one data folder. ` +
            `Stop that npm start first (Ctrl-C in its terminal, or kill ${pid}), or set DATA_DIR to another folder.`
        : `something still answers at ${endpoint}, the database address an earlier npm start on ${dataDir} left there; ` +
            'stop what listens there, or set DATA_DIR to another folder.',
    );
  }
}

const readIfPresent = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined);

/**
 * Refuses to start a second database on a data folder that one still serves (it would see the
 * same file change under it). Files left by a start that ended without cleaning up, whose
 * database no longer answers, are removed; true when that happened.
 */
export const checkForStaleDatabase = async (dataDir: string): Promise<boolean> => {
  const endpoint = readIfPresent(endpointFile(dataDir));
  if (!endpoint) return false;
  const pid = Number(readIfPresent(pidFile(dataDir)));
  const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  if (url && (await acceptsConnections(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port)))) {
    throw new StaleDatabaseError(dataDir, endpoint, Number.isInteger(pid) && pid > 0 ? pid : undefined);
  }
  forgetDatabase(dataDir);
  return true;
};

/** Leaves the database's address (for `npm run users`) and the process ids in the data folder. */
export const recordDatabase = (dataDir: string, database: LocalDatabase) => {
  writeFileSync(endpointFile(dataDir), database.endpoint);
  writeFileSync(pidFile(dataDir), String(process.pid));
  if (database.pid !== undefined) writeFileSync(databasePidFile(dataDir), String(database.pid));
};

export const forgetDatabase = (dataDir: string) => {
  rmSync(endpointFile(dataDir), { force: true });
  rmSync(pidFile(dataDir), { force: true });
  rmSync(databasePidFile(dataDir), { force: true });
  rmSync(join(dataDir, 'dynamodb-local.pid'), { force: true }); // left by a start before Dynoxide
};
