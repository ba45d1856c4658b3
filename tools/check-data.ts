import { DEFAULT_TABLE_NAMES } from '../local/tables';
import { checkBooksTable } from '../ops/invariants';
import { parseCommandLine, runTool } from './cli';
import { booksTableOf, DATABASE_OPTIONS, openDatabase } from './database';

const COMMAND = 'npm run data:check --';

const HELP = `Usage: npm run data:check -- [options]

Checks the books table's invariants: every book's normalised ISBN is claimed by exactly one claim
item that points back to it, no orphan claims, no shared ISBNs, ids unique and not above the
id-blocks item's high mark. Prints every violation; exits 1 when there is any, 2 on a usage error.

Options:
  --table <name>      books table (default: BOOKS_TABLE_NAME or "${DEFAULT_TABLE_NAMES.books}"; required with --aws)
  --endpoint <url>    a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the running npm start's
                      database in DATA_DIR, else DATA_DIR opened by this command)
  --aws               check the deployed table in AWS (credentials from the usual AWS settings)
  --region <region>   AWS region with --aws
  --json              print the report as JSON
  -h, --help          this text

Examples:
  npm run data:check
  npm run data:check -- --aws --table BookLibrary-prod-BooksTable... --region eu-west-1
`;

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      ...DATABASE_OPTIONS,
      json: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const table = booksTableOf(values);

  const database = await openDatabase({ ...values, log: console.error });
  try {
    console.error(`Checking table "${table}" at ${database.where} ...`);
    const report = await checkBooksTable(database.client, table);
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else {
      for (const violation of report.violations) console.log(`${violation.kind}: ${violation.message}`);
      console.log(
        `${report.books} books, ${report.claims} ISBN claims, last id ${report.lastId}: ` +
          (report.violations.length === 0 ? 'no violations' : `${report.violations.length} violation(s)`),
      );
    }
    if (report.violations.length > 0) process.exitCode = 1;
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main, (error) => (error.name === 'ResourceNotFoundException' ? 'no such table' : error.message));
