import { DEFAULT_TABLE_NAMES } from '../local/tables';
import { runMigrations } from '../ops/migrations/run';
import { MIGRATION_STEPS } from '../ops/migrations/steps';
import { OLDEST_SERVED_SCHEMA_VERSION, SCHEMA_VERSION } from '../shared/store/books/schema-version';
import { parseCommandLine, runTool, UsageError } from './cli';
import { booksTableOf, DATABASE_OPTIONS, openDatabase } from './database';

const COMMAND = 'npm run data:migrate --';

const HELP = `Usage: npm run data:migrate -- [options]

Brings the books table towards schemaVersion ${SCHEMA_VERSION}, the version this code writes: runs in order the
steps under ops/migrations/ above the table's schemaVersion (kept on its id-blocks item) that are
due in the phase asked for, records each as it ends, and names the due steps it leaves. This code
serves tables from schemaVersion ${OLDEST_SERVED_SCHEMA_VERSION}; a table older answers 503 with Retry-After and logs a line
naming this command. The upgrade (docs/operations.md): --phase before, deploy, --phase after.
Interrupted, run it again: it continues where it stopped; on a table up to date it changes nothing.
npm start runs the 'before' steps on its own table (every step on a new one).

Steps (version, phase, name):
${MIGRATION_STEPS.map((step) => `  ${step.version}  ${step.phase.padEnd(6)} ${step.name}: ${step.summary}`).join('\n')}

Options:
  --phase <phase>     before: the due steps up to the first 'after' one (run before deploying);
                      after: every due step (after the deploy); default: after
  --table <name>      books table (default: BOOKS_TABLE_NAME or "${DEFAULT_TABLE_NAMES.books}"; required with --aws)
  --endpoint <url>    a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the running npm start's
                      database in DATA_DIR, else DATA_DIR opened by this command)
  --aws               migrate the deployed table in AWS (credentials from the usual AWS settings)
  --region <region>   AWS region with --aws
  -h, --help          this text

Examples:
  npm run data:migrate
  npm run data:migrate -- --phase before
  npm run data:migrate -- --aws --table BookLibrary-prod-BooksTable... --region eu-west-1
`;

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: { ...DATABASE_OPTIONS, phase: { type: 'string', default: 'after' } } as const,
  });
  if (!parsed) return;
  const { phase } = parsed.values;
  if (phase !== 'before' && phase !== 'after') throw new UsageError(`--phase takes before or after, not "${phase}"`);
  const table = booksTableOf(parsed.values);
  const database = await openDatabase({ ...parsed.values, log: console.error });
  try {
    console.error(`Migrating table "${table}" at ${database.where} ...`);
    const report = await runMigrations(database.client, table, { log: console.error, phase });
    const left = report.skipped.length ? `; left for --phase after: ${report.skipped.join(', ')}` : '';
    console.log(
      report.due.length === 0
        ? `Table "${table}" is at schemaVersion ${report.from}: nothing to do.`
        : report.ran.length === 0
          ? `Table "${table}" stays at schemaVersion ${report.from}${left}.`
          : `Table "${table}" moved from schemaVersion ${report.from} to ${report.to} (ran: ${report.ran.join(', ')}${left}).`,
    );
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main, (error) => (error.name === 'ResourceNotFoundException' ? 'no such table' : error.message));
