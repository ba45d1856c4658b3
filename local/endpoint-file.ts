import { join } from 'node:path';

/** Where a running `npm start` leaves the address of its local database, for `npm run users`. */
export const endpointFile = (dataDir: string) => join(dataDir, 'dynamodb-endpoint');

/**
 * Where a running `npm start` leaves its API's base URL (`http://127.0.0.1:PORT`), for the tools
 * that call it (seed, verify:deployment); removed when it stops, so one left behind is stale.
 */
export const apiUrlFile = (dataDir: string) => join(dataDir, 'api-url');
