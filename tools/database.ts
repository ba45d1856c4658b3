import { existsSync, readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type LocalDatabase, startLocalDatabase } from '../local/dynoxide';
import { endpointFile } from '../local/endpoint-file';
import { acceptsConnections } from '../local/ports';
import { forgetDatabase } from '../local/stale-database';
import { DEFAULT_TABLE_NAMES } from '../local/tables';
import { ENV, readSetting } from '../shared/config';
import { createDocumentClient } from '../shared/store/dynamodb-client';
import { UsageError } from './cli';

/** The command-line options every tool that opens the database takes (parseArgs' form). */
export const DATABASE_OPTIONS = {
  table: { type: 'string' },
  endpoint: { type: 'string' },
  aws: { type: 'boolean', default: false },
  region: { type: 'string' },
} as const;

export interface DatabaseOptions {
  /** The deployed tables in AWS, with the usual AWS credentials and settings. */
  aws: boolean;
  region?: string;
  /** A DynamoDB endpoint (else DYNAMODB_ENDPOINT, else the running npm start's, else DATA_DIR opened here). */
  endpoint?: string;
  /** Told when this command has to open DATA_DIR itself. */
  log?: (message: string) => void;
}

export interface Database {
  client: DynamoDBDocumentClient;
  /** The local endpoint; undefined for AWS. */
  endpoint?: string;
  /** Where the tables are, for messages. */
  where: string;
  /** Stops the Dynoxide this command opened, if it opened one. */
  close: () => Promise<void>;
}

/** Whether a recorded DynamoDB address still takes connections. */
const answers = async (endpoint: string) => {
  if (!URL.canParse(endpoint)) return false;
  const { hostname, port } = new URL(endpoint);
  return acceptsConnections(hostname.replace(/^\[|\]$/g, ''), Number(port));
};

/**
 * The database the command-line tools work on: AWS with `--aws`, else the local one `npm start`
 * uses, whether or not it is running (when it is not, its on-disk data is opened for the duration
 * of the command).
 */
export const openDatabase = async ({ aws, region, endpoint, log }: DatabaseOptions): Promise<Database> => {
  if (aws) {
    return {
      client: DynamoDBDocumentClient.from(new DynamoDBClient(region ? { region } : {})),
      where: `AWS${region ? ` ${region}` : ''}`,
      close: async () => undefined,
    };
  }
  let local: LocalDatabase | undefined;
  let url = endpoint ?? readSetting('dynamodbEndpoint');
  const dataDir = process.env.DATA_DIR || '.data';
  if (!url && existsSync(endpointFile(dataDir))) {
    const recorded = readFileSync(endpointFile(dataDir), 'utf8').trim();
    if (await answers(recorded)) url = recorded;
    else {
      // Left by an npm start that was killed: npm start would remove it too, and so does this.
      forgetDatabase(dataDir);
      log?.(
        `${endpointFile(dataDir)} named ${recorded}, where nothing answers: it was stale, left by an npm start that did not stop cleanly, and is removed`,
      );
    }
  }
  if (!url) {
    log?.(`npm start is not running; opening ${dataDir} ...`);
    local = await startLocalDatabase({ dataDir });
    url = local.endpoint;
  }
  return { client: createDocumentClient(url), endpoint: url, where: url, close: async () => local?.stop() };
};

/**
 * The books table a tool works on: `--table`, else (locally) BOOKS_TABLE_NAME or the default; with
 * `--aws` the name must be given, and `--aws` and `--endpoint` exclude each other.
 */
export const booksTableOf = (values: { table?: string; aws?: boolean; endpoint?: string }): string => {
  const table =
    values.table ?? (values.aws ? undefined : (process.env[ENV.booksTableName] ?? DEFAULT_TABLE_NAMES.books));
  if (!table) throw new UsageError('--aws needs --table (the stack output BooksTableName)');
  if (values.aws && values.endpoint) throw new UsageError('--aws and --endpoint exclude each other');
  return table;
};
