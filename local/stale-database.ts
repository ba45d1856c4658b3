import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acceptsConnections, type DynamoDbLocal } from './dynamodb-local';
import { endpointFile } from './endpoint-file';

/** Beside the endpoint file: the process id of the DynamoDB Local that `npm start` started. */
export const pidFile = (dataDir: string) => join(dataDir, 'dynamodb-local.pid');

/** A DynamoDB Local of an earlier start that still answers on the same data folder. */
export class StaleDatabaseError extends Error {
  override readonly name = 'StaleDatabaseError';
  constructor(dataDir: string, endpoint: string, pid: string | undefined) {
    super(
      `a DynamoDB Local${pid ? ` (process ${pid})` : ''} already serves ${dataDir} at ${endpoint}: ` +
        'another npm start on this folder is running, or one that did not stop cleanly left it behind, and ' +
        `two cannot share one data folder. Stop it first${pid ? ` (kill ${pid})` : ''}, or set DATA_DIR to another folder.`,
    );
  }
}

const readIfPresent = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined);

/**
 * Refuses to start a second DynamoDB Local on a data folder that one still serves (it would see
 * the same files change under it). Files left by a start that ended without cleaning up, whose
 * database no longer answers, are removed; true when that happened.
 */
export const checkForStaleDatabase = async (dataDir: string): Promise<boolean> => {
  const endpoint = readIfPresent(endpointFile(dataDir));
  if (!endpoint) return false;
  const pid = readIfPresent(pidFile(dataDir));
  const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  if (url && (await acceptsConnections(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port)))) {
    throw new StaleDatabaseError(dataDir, endpoint, pid);
  }
  forgetDatabase(dataDir);
  return true;
};

/** Leaves the database's address (for `npm run users`) and process id in the data folder. */
export const recordDatabase = (dataDir: string, database: DynamoDbLocal) => {
  writeFileSync(endpointFile(dataDir), database.endpoint);
  if (database.pid !== undefined) writeFileSync(pidFile(dataDir), String(database.pid));
};

export const forgetDatabase = (dataDir: string) => {
  rmSync(endpointFile(dataDir), { force: true });
  rmSync(pidFile(dataDir), { force: true });
};
