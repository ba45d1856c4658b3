import { parseArgs } from 'node:util';
import { type AuthScheme, apiClient } from './api-client';
import { positiveInteger, runTool, UsageError } from './cli';
import { readPassword } from './prompt';
import { SAMPLE_CATALOGUE } from './sample-catalogue';

const HELP = `Usage: npm run seed [-- options]

Loads a sample catalogue (${SAMPLE_CATALOGUE.length} classics, authors from many languages, years 1008-1925) through
the API, by POST /api/books. Idempotent: a book whose ISBN is already there (409) is counted, not
added again, so a second run adds nothing and still succeeds.

Options:
  --url <url>         the API's base URL (default http://127.0.0.1:3000, the one npm start serves)
  --user <name>       user name; the password is read from stdin, or prompted for (default demo:demo)
  --scheme <scheme>   basic or digest (default basic)
  --count <n>         load only the first n books of the catalogue (default all)
  -h, --help          this text

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

runTool('npm run seed', HELP, async (args) => {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      user: { type: 'string' },
      scheme: { type: 'string', default: 'basic' },
      count: { type: 'string' },
    },
  });
  if (!URL.canParse(values.url)) throw new UsageError(`--url "${values.url}" is not a URL`);
  if (values.scheme !== 'basic' && values.scheme !== 'digest') throw new UsageError('--scheme is basic or digest');
  const count = Math.min(positiveInteger('count', values.count, SAMPLE_CATALOGUE.length), SAMPLE_CATALOGUE.length);
  const username = values.user ?? 'demo';
  const password = values.user === undefined ? 'demo' : await readPassword();

  const baseUrl = values.url.endsWith('/') ? values.url : `${values.url}/`;
  const api = apiClient(baseUrl, { username, password, scheme: values.scheme as AuthScheme });
  const show = progress(count);
  console.error(`Seeding ${count} books into ${new URL('api/books', baseUrl)} as ${username} (${values.scheme}) ...`);
  let added = 0;
  let present = 0;
  for (const [index, book] of SAMPLE_CATALOGUE.slice(0, count).entries()) {
    const response = await api.call('POST', 'api/books', book).catch((error: Error) => {
      throw new Error(`cannot reach ${baseUrl}: ${error.cause instanceof Error ? error.cause.message : error.message}`);
    });
    if (response.status === 201) added++;
    else if (response.status === 409) present++;
    else if (response.status === 401) throw new Error('the API refused the credentials (401)');
    else throw new Error(`"${book.title}" got ${response.status}: ${response.body.slice(0, 200)}`);
    show(index + 1, added, present);
  }
  console.log(`${added} added, ${present} already there, ${count} in the catalogue.`);
});
