import { migrateBooksTable } from '../admin/migrate-layout';
import { DEFAULT_TABLE_NAMES } from '../local/tables';
import { assertBooksTableLayout } from '../shared/store/books/table-layout';
import { parseCommandLine, runTool, UsageError } from './cli';
import { booksTableOf, DATABASE_OPTIONS, openDatabase } from './database';

const COMMAND = 'npm run data:migrate-layout --';

const HELP = `Usage: npm run data:migrate-layout -- [options]

Moves the books of a table from the older layout (partition keys BOOK#<id mod 32>) to id ranges
(BOOKS#<id div 64>) while the service keeps answering: each book is copied by one transaction,
then the table is marked migrated (the service then reads the new layout only), and after a grace
period the older items are deleted. Last, every id range below the highest id reserved gets its
end mark (so a list ends without reading the id-blocks item), and every book gets its keys in the
author-and-year index and its two-shard author key (so a page filtered by author, or by author and
year, is two queries, not sixteen). Run it once this version of the stack is deployed (the deploy
adds the index byAuthorYear; the command refuses a table without it). Interrupted, run it again:
it continues where it stopped and never loses or duplicates a book. Run npm run data:check afterwards. Books only: users kept
under the earlier layout move with npm run users -- migrate.

Options:
  --table <name>      books table (default: BOOKS_TABLE_NAME or "${DEFAULT_TABLE_NAMES.books}"; required with --aws)
  --endpoint <url>    a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the running npm start's
                      database in DATA_DIR, else DATA_DIR opened by this command)
  --aws               migrate the deployed table in AWS (credentials from the usual AWS settings)
  --region <region>   AWS region with --aws
  --grace <seconds>   wait between the mark and deleting the older items (default 60: longer than
                      any list request runs)
  -h, --help          this text

Examples:
  npm run data:migrate-layout
  npm run data:migrate-layout -- --aws --table BookLibrary-prod-BooksTable... --region eu-west-1
`;

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      ...DATABASE_OPTIONS,
      grace: { type: 'string', default: '60' },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const table = booksTableOf(values);
  const grace = Number(values.grace);
  if (!Number.isFinite(grace) || grace < 0) throw new UsageError('--grace takes a number of seconds');

  const database = await openDatabase({ ...values, log: console.error });
  try {
    await assertBooksTableLayout(database.client, table);
    console.error(`Migrating table "${table}" at ${database.where} ...`);
    const report = await migrateBooksTable(database.client, table, { graceMs: grace * 1000, log: console.error });
    console.log(
      `${report.copied} books copied, ${report.alreadyCopied} found copied, ${report.removed} older items removed, ${report.rangeMarks} range end marks written, ${report.authorKeys} books given their author keys`,
    );
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main, (error) => (error.name === 'ResourceNotFoundException' ? 'no such table' : error.message));
