import { type AuthScheme, apiClient } from './api-client';
import { refuseApiPath } from './base-url';
import { integerOption, parseCommandLine, runTool, UsageError } from './cli';
import { findLocalApi } from './local-api-address';
import { readPassword } from './prompt';
import { SAMPLE_CATALOGUE } from './sample-catalogue';
import { ALLOW_INSECURE_HTTP, ANSWER_LIMIT_BYTES, AnswerTooLargeError, checkTransport } from './untrusted-server';

const HELP = `Usage: npm run seed [-- options]

Loads a sample catalogue (${SAMPLE_CATALOGUE.length} classics, authors from many languages, years 1008-1925) through
the API, by POST /api/books. Idempotent: a book whose ISBN is already there (409) is counted, not
added again, so a second run adds nothing and still succeeds.

Options:
  --url <url>         the API's base URL, what comes before /api/books (default: the npm start
                      running on this machine, found by the address it leaves in DATA_DIR, default
                      .data, else http://127.0.0.1:$PORT, else port 3000)
  --user <name>       user name; the password is read from stdin, or prompted for (default demo:demo)
  --scheme <scheme>   basic or digest (default basic)
  --count <n>         load only the first n books of the catalogue (default all)
  --allow-insecure-http
                      send the password over plain http:// to a host that is not this machine
                      (refused without it: anyone on the way could read it)
  -h, --help          this text

It trusts no server: control characters of an answer it prints are escaped, and it reads at most
${ANSWER_LIMIT_BYTES} bytes (1 MiB) of an answer ("answer too large" past that). Ctrl-C stops it
between two books and says how far it got; running it again adds the rest.

Examples:
  npm run seed
  printf '%s' "$PW" | npm run seed -- --url https://<api>.execute-api.<region>.amazonaws.com/prod --user alice --scheme digest`;

/** One line that rewrites itself on a terminal; a line per tenth elsewhere (logs stay readable). */
const progress = (total: number) => {
  const width = 30;
  let lastTenth = -1;
  return (done: number, added: number, present: number) => {
    const text = `${done}/${total} (added ${added}, already there ${present})`;
    if (process.stderr.isTTY) {
      const filled = Math.round((done / total) * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`);
      if (done === total) process.stderr.write('\n');
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth !== lastTenth || done === total) console.error(text);
    lastTenth = tenth;
  };
};

const COMMAND = 'npm run seed --';

runTool(COMMAND, async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      url: { type: 'string' },
      [ALLOW_INSECURE_HTTP]: { type: 'boolean', default: false },
      user: { type: 'string' },
      scheme: { type: 'string', default: 'basic' },
      count: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const found = values.url === undefined ? findLocalApi() : undefined;
  const url = values.url ?? (found as { url: string }).url;
  if (!URL.canParse(url)) throw new UsageError(`--url "${url}" is not a URL`);
  if (!/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--url "${url}" is not an http(s) URL`);
  refuseApiPath(new URL(url), '--url');
  checkTransport(new URL(url), values[ALLOW_INSECURE_HTTP] ?? false);
  if (values.scheme !== 'basic' && values.scheme !== 'digest') throw new UsageError('--scheme is basic or digest');
  const count = Math.min(integerOption('count', values.count, SAMPLE_CATALOGUE.length), SAMPLE_CATALOGUE.length);
  const username = values.user ?? 'demo';
  const password = values.user === undefined ? 'demo' : await readPassword();

  const baseUrl = url.endsWith('/') ? url : `${url}/`;
  const api = apiClient(baseUrl, { username, password, scheme: values.scheme as AuthScheme });
  const show = progress(count);
  console.error(`Seeding ${count} books into ${new URL('api/books', baseUrl)} as ${username} (${values.scheme}) ...`);
  let added = 0;
  let present = 0;
  let done = 0;
  const sofar = () => `${done} of ${count} books sent (${added} added, ${present} already there)`;
  // Ctrl-C between two books: the one under way finishes, so nothing is half-sent, and the count is said.
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = signal;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (const [index, book] of SAMPLE_CATALOGUE.slice(0, count).entries()) {
    if (interrupted) {
      if (process.stderr.isTTY) process.stderr.write('\n');
      console.error(`${interrupted}: stopped after ${sofar()}; run it again to add the rest.`);
      process.exit(130);
    }
    const response = await api.call('POST', 'api/books', book).catch((error: Error) => {
      if (error instanceof AnswerTooLargeError) throw error;
      const reason = error.cause instanceof Error ? error.cause.message : error.message;
      const hint = found ? `; ${found.unreachableHint}` : '';
      throw new Error(`cannot reach ${baseUrl}: ${reason}${hint}${done > 0 ? `; ${sofar()}` : ''}`, {
        cause: error,
      });
    });
    if (response.status === 201) added++;
    else if (response.status === 409) present++;
    else if (response.status === 401)
      throw new Error(
        `the API refused the credentials of "${username}" (401): a wrong user name or password, or the account ` +
          `is locked by failed sign-ins (\`npm run users -- unlock ${username}\` lifts it); ${sofar()}`,
      );
    else throw new Error(`"${book.title}" got ${response.status}: ${response.body.slice(0, 200)}; ${sofar()}`);
    done = index + 1;
    show(done, added, present);
  }
  console.log(`${added} added, ${present} already there, ${count} in the catalogue.`);
});
