import { runMigrations } from '../admin/migrations/run';
import { MIGRATION_STEPS } from '../admin/migrations/steps';
import { DEFAULT_TABLE_NAMES } from '../local/tables';
import { SCHEMA_VERSION } from '../shared/store/books/schema-version';
import { parseCommandLine, runTool } from './cli';
import { booksTableOf, DATABASE_OPTIONS, openDatabase } from './database';

const COMMAND = 'npm run data:migrate --';

const HELP = `Usage: npm run data:migrate -- [options]

Brings the books table to schemaVersion ${SCHEMA_VERSION}, the version this code reads: runs in order every
step under admin/migrations/ above the table's schemaVersion (kept on its id-blocks item) and records
each as it ends. A service whose table is behind answers 500 and logs a SchemaVersionError naming this
command. Run it after each deploy; interrupted, run it again: it continues where it stopped, and
on a table that is up to date it changes nothing. npm start runs it on its own table.

Steps:
${MIGRATION_STEPS.map((step) => `  ${step.version}  ${step.name}: ${step.summary}`).join('\n')}

Options:
  --table <name>      books table (default: BOOKS_TABLE_NAME or "${DEFAULT_TABLE_NAMES.books}"; required with --aws)
  --endpoint <url>    a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the running npm start's
                      database in DATA_DIR, else DATA_DIR opened by this command)
  --aws               migrate the deployed table in AWS (credentials from the usual AWS settings)
  --region <region>   AWS region with --aws
  -h, --help          this text

Examples:
  npm run data:migrate
  npm run data:migrate -- --aws --table BookLibrary-prod-BooksTable... --region eu-west-1
`;

const main = async () => {
  const parsed = parseCommandLine({ command: COMMAND, help: HELP, options: DATABASE_OPTIONS });
  if (!parsed) return;
  const table = booksTableOf(parsed.values);
  const database = await openDatabase({ ...parsed.values, log: console.error });
  try {
    console.error(`Migrating table "${table}" at ${database.where} ...`);
    const report = await runMigrations(database.client, table, { log: console.error });
    console.log(
      report.ran.length === 0
        ? `Table "${table}" is at schemaVersion ${report.from}: nothing to do.`
        : `Table "${table}" moved from schemaVersion ${report.from} to ${report.to} (${report.ran.join(', ')}).`,
    );
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main, (error) => (error.name === 'ResourceNotFoundException' ? 'no such table' : error.message));
