import { join } from 'node:path';

/** Where a running `npm start` leaves the address of its local database, for `npm run users`. */
export const endpointFile = (dataDir: string) => join(dataDir, 'dynamodb-endpoint');
