import { generateSecret, passwordProblem } from '../admin/password-rules';
import { isValidUsername, userRecord } from '../admin/user-records';
import { DEFAULT_TABLE_NAMES, ensureTables } from '../local/tables';
import { lockedEverywhereUntil, lockedSources } from '../shared/auth/account-failures';
import type { LockoutPolicy } from '../shared/auth/lockout';
import { ENV, readLockoutPolicy, readSetting } from '../shared/config';
import type { FailureListing } from '../shared/store/auth/dynamodb-account-store';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import { createDynamoClient } from '../shared/store/dynamodb-client';
import { parseCommandLine, runTool, UsageError } from './cli';
import { openDatabase } from './database';
import { migrateLegacyUsers } from './legacy-users';
import { readPassword } from './prompt';

const COMMAND = 'npm run users --';

const HELP = `Usage: npm run users -- <command> [options]

Commands:
  add <name>      create or update a user; the password is read from a prompt (asked twice), or from stdin
                  when piped: at least 15 characters, and none of the 10,000 most common passwords
  remove <name>   delete a user
  unlock <name>   lift a name's lockouts (a user's or not, from every address) at once: its failures are forgotten
  migrate         copy users kept under the earlier key layout (USER#<name>) to today's: run it before deploying
                  this version and again after; then once with --remove-earlier to delete the earlier items
                  (users only: the books table's layout moves with npm run data:migrate-layout)
  list            list user names and their realm, then every name locked now, from how many addresses,
                  and until when (a name that is nobody's is not stored: it shows as its ACCOUNT# key)

Options:
  --realm <realm>      realm the user's digests are computed for (default: AUTH_REALM or "books")
  --aws                use the deployed auth table in AWS (credentials and region from the usual AWS settings)
  --table <name>       auth table name (default: AUTH_TABLE_NAME or "${DEFAULT_TABLE_NAMES.auth}"; required with --aws)
  --region <region>    AWS region with --aws
  --endpoint <url>     a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the local database in DATA_DIR)
  --generate           with add: a machine credential, its 256-bit secret generated and printed once
                       (its successes skip the guessing limit's write: docs/security.md)
  --remove-earlier     with migrate: delete the USER#<name> items once copied (after this version is deployed)
  -h, --help           this text

Environment:
  AUTH_FAILURE_LIMIT, AUTH_LOCKOUT_AFTER, AUTH_LOCKOUT_SECONDS, AUTH_LOCKOUT_MAX_SECONDS
                       the lockout policy "list" judges by (default 100, 5, 60, 900; set them as deployed)

Examples:
  npm run users -- add alice
  npm run users -- unlock alice
  printf '%s' "$PASSWORD" | npm run users -- add alice --aws --table BookLibrary-dev-AuthTable...
`;

const lockoutPolicy = (): LockoutPolicy => {
  try {
    return readLockoutPolicy();
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
};

/**
 * Names locked now, for every client address (the hourly ceiling) or for some: users by name, then
 * names that are nobody's by their key (the name itself is not stored; `unlock <name>` finds it).
 */
const printLocked = (listings: FailureListing[], policy: LockoutPolicy, now = Date.now()) => {
  const locked = listings
    .map((listing) => ({
      ...listing,
      everywhere: lockedEverywhereUntil(listing.failures, policy),
      sources: lockedSources(listing.failures, now, policy),
    }))
    .filter((listing) => listing.everywhere > now || listing.sources.length > 0);
  if (locked.length === 0) {
    console.log('No account is locked.');
    return;
  }
  console.log('Locked (no password is evaluated until then; `unlock <name>` lifts it):');
  for (const entry of locked) {
    const who = entry.isUser ? entry.username : `${entry.key} (no such user)`;
    const where =
      entry.everywhere > now
        ? `from every address until ${new Date(entry.everywhere).toISOString()} (hourly limit)`
        : `from ${entry.sources.length} address${entry.sources.length === 1 ? '' : 'es'} until ${new Date(Math.max(...entry.sources.map((s) => s.until))).toISOString()}`;
    console.log(`${who}\t${where}`);
  }
};

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    allowPositionals: true,
    options: {
      realm: { type: 'string' },
      aws: { type: 'boolean', default: false },
      table: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      generate: { type: 'boolean', default: false },
      'remove-earlier': { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  const [command, name, ...extra] = positionals;
  if (!command) throw new UsageError('a command is needed: add, remove, unlock, migrate or list');
  if (!['add', 'remove', 'unlock', 'migrate', 'list'].includes(command))
    throw new UsageError(`unknown command "${command}"`);
  const takesName = command !== 'list' && command !== 'migrate';
  if (takesName && !name) throw new UsageError(`"${command}" needs a user name`);
  if (extra.length > 0 || (!takesName && name)) throw new UsageError(`unexpected argument "${extra[0] ?? name}"`);
  if (values.generate && command !== 'add') throw new UsageError('--generate goes with add only');
  if (values['remove-earlier'] && command !== 'migrate')
    throw new UsageError('--remove-earlier goes with migrate only');
  if (name && command !== 'unlock' && !isValidUsername(name))
    throw new UsageError('a user name is 1-128 characters without spaces, ":", \'"\' or "\\"');
  const realm = values.realm ?? readSetting('realm');
  const table = values.table ?? process.env[ENV.authTableName] ?? (values.aws ? undefined : DEFAULT_TABLE_NAMES.auth);
  if (!table) throw new UsageError('--aws needs --table (the stack output AuthTableName)');

  const database = await openDatabase({ ...values, log: console.error });
  try {
    if (database.endpoint) {
      // Locally the tables may not exist yet (npm start never ran): create them as npm start would.
      await ensureTables(createDynamoClient(database.endpoint), {
        books: process.env[ENV.booksTableName] ?? DEFAULT_TABLE_NAMES.books,
        auth: table,
      });
    }
    const users = new DynamoUserStore(database.client, table);
    if (command === 'add') {
      const password = values.generate ? generateSecret() : await readPassword();
      const problem = passwordProblem(password);
      if (problem) throw new UsageError(problem);
      await users.put({ ...userRecord(name as string, password, realm), ...(values.generate && { machine: true }) });
      console.log(`User "${name}" saved for realm "${realm}".`);
      if (values.generate) console.log(`Its secret (shown once, keep it safe): ${password}`);
    } else if (command === 'remove') {
      const removed = await users.delete(name as string);
      console.log(removed ? `User "${name}" removed.` : `No user "${name}".`);
      if (!removed) process.exitCode = 1;
    } else if (command === 'unlock') {
      const unlocked = await users.clearFailures(name as string);
      console.log(
        unlocked ? `"${name}" unlocked: its failures are forgotten.` : `"${name}" has no failures to forget.`,
      );
    } else if (command === 'migrate') {
      const removeEarlier = values['remove-earlier'];
      const { moved, kept } = await migrateLegacyUsers(database.client, table, { removeEarlier });
      console.log(`${moved.length} user(s) copied to the current key layout.`);
      for (const username of kept)
        console.log(`"${username}" is already stored under the current layout; kept as it is.`);
      console.log(
        removeEarlier
          ? 'The earlier USER# items are deleted.'
          : 'The earlier USER# items stay for the version before this one; delete them with --remove-earlier once this version is deployed.',
      );
    } else {
      const all = await users.list();
      if (all.length === 0) console.log('No users.');
      for (const user of all) console.log(`${user.username}\t${user.realm}`);
      printLocked(await users.listFailures(), lockoutPolicy());
    }
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main);
