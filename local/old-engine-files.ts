import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The file DynamoDB Local kept its tables in, with the -sharedDb option every earlier `npm start`
 * passed. Dynoxide cannot read it (another schema; DynamoDB Local needs Java to open it).
 */
export const OLD_ENGINE_FILE = 'shared-local-instance.db';
/** Dynoxide's file in the same folder (local/dynoxide.ts). */
const DYNOXIDE_FILE = 'dynoxide.db';

/** A data folder written by DynamoDB Local: starting Dynoxide on it would look like a database emptied. */
export class OldEngineFilesError extends Error {
  override readonly name = 'OldEngineFilesError';
  constructor(readonly dataDir: string) {
    const file = join(dataDir, OLD_ENGINE_FILE);
    super(
      `${dataDir} holds the data of DynamoDB Local (${file}), the local database before Dynoxide, which cannot read it. ` +
        `To start with an empty database and keep the old file, rename or move it (mv ${file} ${file}.old) ` +
        'or set DATA_DIR to another folder. To keep its books, run a release before the switch (it needs Java 17) on this folder ' +
        'and copy them through the API; see docs/decisions/dynoxide-local-database.md.',
    );
  }
}

/** Refuses a folder holding DynamoDB Local's file and no Dynoxide file yet; one already carried on is left alone. */
export const checkForOldEngineFiles = (dataDir: string) => {
  if (existsSync(join(dataDir, OLD_ENGINE_FILE)) && !existsSync(join(dataDir, DYNOXIDE_FILE))) {
    throw new OldEngineFilesError(dataDir);
  }
};
