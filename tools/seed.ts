import { parseArgs } from 'node:util';
import { type ApiCredentials, ApiUnreachableError, type AuthScheme, createApiClient } from './api-client';
import { PromptCancelledError, readPassword } from './password';
import { SAMPLE_BOOKS, type SampleBook } from './seed-catalogue';

const DEFAULT_URL = 'http://127.0.0.1:3000';
const DEMO = { username: 'demo', password: 'demo' };
/** Creates in flight at once: enough to be quick, few enough for a stage's default throttling. */
const CONCURRENCY = 4;

const HELP = `Usage: npm run seed -- [options]

Loads a sample catalogue of ${SAMPLE_BOOKS.length} public-domain classics through the API (POST /api/books).
Running it again adds nothing: a book whose ISBN is already taken (409) counts as already there.

Options:
  --url <url>          the API's base URL (default ${DEFAULT_URL}, the one npm start serves)
  --user <name>        user name (default "demo" with password "demo", the user npm start creates);
                       with --user the password is read from stdin when piped, else from a prompt
  --auth <scheme>      basic or digest (default basic)
  --count <n>          load only the first n books of the catalogue (1-${SAMPLE_BOOKS.length}, default all)
  -h, --help           this text

Examples:
  npm run seed
  npm run seed -- --count 20 --auth digest
  printf '%s' "$PASSWORD" | npm run seed -- --url https://abc.execute-api.eu-west-1.amazonaws.com/prod --user alice
`;

class UsageError extends Error {
  override readonly name = 'UsageError';
}

class SeedFailedError extends Error {
  override readonly name = 'SeedFailedError';
}

interface SeedOptions {
  url: string;
  count: number;
  credentials: ApiCredentials;
}

const parseOptions = async (argv: string[]): Promise<SeedOptions | undefined> => {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const { values, positionals } = parsed;
  if (values.help) return undefined;
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const url = values.url ?? DEFAULT_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new UsageError(`--url must be an http or https URL, not "${url}"`);
  }
  const count = values.count === undefined ? SAMPLE_BOOKS.length : Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > SAMPLE_BOOKS.length) {
    throw new UsageError(`--count must be a whole number from 1 to ${SAMPLE_BOOKS.length}, not "${values.count}"`);
  }
  const scheme = values.auth ?? 'basic';
  if (scheme !== 'basic' && scheme !== 'digest')
    throw new UsageError(`--auth must be basic or digest, not "${scheme}"`);
  const user = values.user === undefined ? DEMO : { username: values.user, password: await readPassword() };
  return { url, count, credentials: { ...user, scheme: scheme as AuthScheme } };
};

const parseCommandLine = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      user: { type: 'string' },
      auth: { type: 'string' },
      count: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });

/** A bar redrawn in place on a terminal; elsewhere (CI logs, pipes) a line every tenth of the way. */
const progress = (total: number) => {
  const interactive = process.stderr.isTTY;
  let lastTenth = -1;
  return (done: number, added: number, present: number) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}  added ${added}, already there ${present}`;
    if (interactive) {
      process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      process.stderr.write(`${line}\n`);
    }
  };
};

type Outcome = 'added' | 'present';

const seed = async ({ url, count, credentials }: SeedOptions) => {
  const api = createApiClient(url, credentials);
  // One read first, so wrong credentials or a wrong URL fail at once with one clear message.
  const probe = await api.request('GET', '/api/books?limit=1');
  await probe.arrayBuffer();
  if (probe.status === 401) {
    throw new SeedFailedError(`${url} refused the credentials of "${credentials.username}" (401)`);
  }
  if (probe.status !== 200)
    throw new SeedFailedError(`GET ${url}/api/books answered ${probe.status}: is this the book API?`);

  const books = SAMPLE_BOOKS.slice(0, count);
  const show = progress(books.length);
  let added = 0;
  let present = 0;
  const create = async (book: SampleBook): Promise<Outcome> => {
    const response = await api.request('POST', '/api/books', book);
    const text = await response.text();
    if (response.status === 201) return 'added';
    if (response.status === 409) return 'present';
    throw new SeedFailedError(`POST /api/books "${book.title}" answered ${response.status} ${text}`);
  };
  const queue = [...books];
  const worker = async () => {
    for (let book = queue.shift(); book; book = queue.shift()) {
      if ((await create(book)) === 'added') added++;
      else present++;
      show(added + present, added, present);
    }
  };
  show(0, 0, 0);
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, books.length) }, worker));
  console.log(
    `Added ${added} book${added === 1 ? '' : 's'}; ${present} ${present === 1 ? 'was' : 'were'} already there (of ${books.length}).`,
  );
  // The demo user's password is no secret; anyone else's is left for curl to prompt for.
  const isDemo = credentials.username === DEMO.username && credentials.password === DEMO.password;
  const user = isDemo ? `${DEMO.username}:${DEMO.password}` : credentials.username;
  console.log(`Next page links: curl -i -u ${user} '${url.replace(/\/+$/, '')}/api/books?limit=20'`);
};

const main = async () => {
  try {
    const options = await parseOptions(process.argv.slice(2));
    if (!options) {
      console.log(HELP);
      return;
    }
    await seed(options);
  } catch (error) {
    if (error instanceof UsageError || error instanceof PromptCancelledError) {
      console.error(`seed: ${error.message}\nRun "npm run seed -- --help" for usage.`);
      process.exitCode = 2;
    } else if (error instanceof SeedFailedError) {
      console.error(`\nseed: ${error.message}`);
      process.exitCode = 1;
    } else if (error instanceof ApiUnreachableError) {
      console.error(`\nseed: ${error.message} (${(error.cause as Error)?.message}); is npm start running?`);
      process.exitCode = 1;
    } else {
      throw error;
    }
  }
};

await main();
