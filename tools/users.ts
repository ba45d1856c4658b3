import { DEFAULT_TABLE_NAMES, ensureTables } from '../local/tables';
import { generateSecret, passwordProblem } from '../ops/password-rules';
import { isValidUsername, userRecord } from '../ops/user-records';
import { lockedEverywhereUntil, lockedSources } from '../shared/auth/account-failures';
import type { LockoutPolicy } from '../shared/auth/lockout';
import { parseRole, ROLE_CHOICES, type Role, roleOrReader, UnknownRoleError } from '../shared/auth/roles';
import { ENV, readLockoutPolicy, readSetting } from '../shared/config';
import type { FailureListing } from '../shared/store/auth/dynamodb-account-store';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import { createDynamoClient } from '../shared/store/dynamodb-client';
import { parseCommandLine, runTool, UsageError } from './cli';
import { openDatabase } from './database';
import { readPassword } from './prompt';

const COMMAND = 'npm run users --';

const HELP = `Usage: npm run users -- <command> [options]

Commands:
  add <name>      create or update a user; the password is read from a prompt (asked twice), or from stdin
                  when piped: at least 15 characters, without the user name, and not guessable (an estimator
                  refuses common passwords, words, names, repeats, sequences and keyboard walks)
  role <name> <role>
                  give a user another role (${ROLE_CHOICES}); its password and lockouts stay as they are
  remove <name>   delete a user
  unlock <name>   lift a name's lockouts (a user's or not, from every address) at once: its failures are forgotten
  list            list user names, their realm and role, then every name locked now, from how many addresses,
                  and until when (a name that is nobody's is not stored: it shows as its ACCOUNT# key)

Options:
  --realm <realm>      realm the user's digests are computed for (default: AUTH_REALM or "books")
  --role <role>        with add, required: ${ROLE_CHOICES}; a reader reads books, an editor also creates
                       and changes them, an admin also deletes them
  --aws                use the deployed auth table in AWS (credentials and region from the usual AWS settings)
  --table <name>       auth table name (default: AUTH_TABLE_NAME or "${DEFAULT_TABLE_NAMES.auth}"; required with --aws)
  --region <region>    AWS region with --aws
  --endpoint <url>     a DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else the local database in DATA_DIR)
  --generate           with add: a machine credential, its 256-bit secret generated and printed once
                       (its successes skip the guessing limit's write: docs/security.md)
  -h, --help           this text

Environment:
  AUTH_FAILURE_LIMIT, AUTH_LOCKOUT_AFTER, AUTH_LOCKOUT_SECONDS, AUTH_LOCKOUT_MAX_SECONDS
                       the lockout policy "list" judges by (default 100, 5, 60, 900; set them as deployed)

Examples:
  npm run users -- add alice --role editor
  npm run users -- add reporting --role reader
  npm run users -- role alice editor
  npm run users -- unlock alice
  printf '%s' "$PASSWORD" | npm run users -- add alice --role admin --aws --table BookLibrary-dev-AuthTable...
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

const roleNamed = (text: string): Role => {
  try {
    return parseRole(text);
  } catch (error) {
    if (error instanceof UnknownRoleError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
};

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    allowPositionals: true,
    options: {
      realm: { type: 'string' },
      role: { type: 'string' },
      aws: { type: 'boolean', default: false },
      table: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      generate: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  const [command, name, ...extra] = positionals;
  if (!command) throw new UsageError('a command is needed: add, role, remove, unlock or list');
  if (!['add', 'role', 'remove', 'unlock', 'list'].includes(command))
    throw new UsageError(`unknown command "${command}"`);
  const takesName = command !== 'list';
  if (takesName && !name) throw new UsageError(`"${command}" needs a user name`);
  const [newRole, ...more] = command === 'role' ? extra : [undefined, ...extra];
  if (command === 'role' && !newRole) throw new UsageError(`"role" needs a user name and a role (${ROLE_CHOICES})`);
  if (more.length > 0 || (!takesName && name)) throw new UsageError(`unexpected argument "${more[0] ?? name}"`);
  if (values.role !== undefined && command !== 'add') throw new UsageError('--role goes with add only');
  if (values.generate && command !== 'add') throw new UsageError('--generate goes with add only');
  // No silent default: a forgotten --role must not make an admin (docs/security.md, "Defaults").
  if (command === 'add' && values.role === undefined)
    throw new UsageError(`"add" needs --role (${ROLE_CHOICES}): no role is given by default`);
  const role = roleNamed(newRole ?? values.role ?? 'reader');
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
      const problem = values.generate ? undefined : passwordProblem(password, { username: name as string, realm });
      if (problem) throw new UsageError(problem);
      await users.put({
        ...userRecord(name as string, password, realm),
        role,
        ...(values.generate && { machine: true }),
      });
      console.log(`User "${name}" saved for realm "${realm}", role ${role}.`);
      if (values.generate) console.log(`Its secret (shown once, keep it safe): ${password}`);
    } else if (command === 'role') {
      const changed = await users.setRole(name as string, role);
      console.log(changed ? `User "${name}" now has the role ${role}.` : `No user "${name}".`);
      if (!changed) process.exitCode = 1;
    } else if (command === 'remove') {
      const removed = await users.delete(name as string);
      console.log(removed ? `User "${name}" removed.` : `No user "${name}".`);
      if (!removed) process.exitCode = 1;
    } else if (command === 'unlock') {
      const unlocked = await users.clearFailures(name as string);
      console.log(
        unlocked ? `"${name}" unlocked: its failures are forgotten.` : `"${name}" has no failures to forget.`,
      );
    } else {
      const all = await users.list();
      if (all.length === 0) console.log('No users.');
      for (const user of all) console.log(`${user.username}\t${user.realm}\t${roleOrReader(user.role)}`);
      printLocked(await users.listFailures(), lockoutPolicy());
    }
  } finally {
    await database.close();
  }
};

runTool(COMMAND, main);
