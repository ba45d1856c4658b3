import { existsSync, readFileSync } from 'node:fs';
import { apiUrlFile } from '../local/endpoint-file';

/** Where a tool's base URL came from, when no --url was given: said in its messages. */
export interface FoundApi {
  url: string;
  /** Said after a failure to connect: where the URL came from, and what to do. */
  unreachableHint: string;
}

/**
 * The API a running `npm start` serves, found as `npm start` leaves it: the address file in
 * DATA_DIR (default .data), else PORT, else port 3000. An address file that names a server that no
 * longer answers is one an `npm start` stopped without cleaning up (killed, or the machine restarted):
 * the hint says so.
 */
export const findLocalApi = (env: NodeJS.ProcessEnv = process.env): FoundApi => {
  const dataDir = env.DATA_DIR || '.data';
  const file = apiUrlFile(dataDir);
  if (existsSync(file)) {
    const url = readFileSync(file, 'utf8').trim();
    if (URL.canParse(url)) {
      return {
        url,
        unreachableHint:
          `${file} names ${url}, but nothing answers there: it is stale, left by an npm start that did not ` +
          'stop cleanly. Start npm start again (it writes the file anew), or give --url',
      };
    }
  }
  const port = env.PORT || '3000';
  return {
    url: `http://127.0.0.1:${port}`,
    unreachableHint: `no npm start found (no ${file}; ${env.PORT ? 'PORT' : 'the default port 3000'} assumed): run npm start first, or give --url`,
  };
};
