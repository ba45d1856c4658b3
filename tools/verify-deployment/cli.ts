import { refuseApiPath } from '../base-url';
import { parseCommandLine, UsageError } from '../cli';
import { findLocalApi } from '../local-api-address';
import { promptHidden, readToolPassword } from '../prompt';
import { ALLOW_INSECURE_HTTP, ANSWER_LIMIT_BYTES, checkTransport, WHOLE_LIST_LIMIT_BYTES } from '../untrusted-server';
import type { VerifyOptions } from './types';

export const COMMAND = 'npm run verify:deployment --';
const DEFAULT_USER = 'demo';
const PASSWORD_VARIABLE = 'VERIFY_PASSWORD';
const READER_PASSWORD_VARIABLE = 'VERIFY_READER_PASSWORD';

export const USAGE =
  'Usage: npm run verify:deployment -- [<base URL>] [--user <name>] [--reader <name>] [--origin <origin>] [--skip-gateway-responses] [--allow-insecure-http]';

const HELP = `${USAGE}

Runs the contract's black-box checks against a running instance of the API and prints one line
per check (PASS, FAIL or SKIP, its name, and after a colon the reason or what it saw), then a
summary line. Exit status 0 when no check failed, 1 when one did, 2 for a mistake in the command,
130 when interrupted.

<base URL> is what comes before /api/books: the stack output ApiUrl without /api/books, stage
included (https://<api>.execute-api.<region>.amazonaws.com/prod). Without it, the npm start running
on this machine: the address it leaves in DATA_DIR (default .data), else http://127.0.0.1:$PORT,
else port 3000.

Options:
  --user <name>               the user to sign in as (default ${DEFAULT_USER}); the password comes from
                              ${PASSWORD_VARIABLE}, else from stdin when it is piped, else from a prompt
                              that does not echo. Never from the command line.
  --reader <name>             also check roles as this user, who has the reader role: a read gets 200
                              and a write 403. Its password comes from ${READER_PASSWORD_VARIABLE}, else
                              from a prompt that does not echo
  --origin <origin>           a browser origin the deployment lets in (its corsAllowedOrigins, e.g.
                              https://app.example.com): the preflight check expects its CORS grant.
                              Without it, only that an unlisted origin gets none is checked
  --skip-gateway-responses    for sam local start-api, which applies none of the stack's gateway
                              responses: the checks that need them (the 401 and its challenges,
                              fresh and stale nonces, Digest, the wrong-password challenge, the
                              unknown-route 404) are reported as SKIP, never as passed
  --allow-insecure-http       send the password over plain http:// to a host that is not this
                              machine (refused without it: anyone on the way could read it)
  -h, --help                  this text

What it trusts: nothing the server sends. Plain http:// goes only to a loopback address
(127.0.0.0/8, ::1, localhost) unless --allow-insecure-http is given; control characters in
anything it prints from an answer are shown escaped (\x1b); it reads at most ${ANSWER_LIMIT_BYTES} bytes
(1 MiB) of an answer, ${WHOLE_LIST_LIMIT_BYTES} (Lambda's 200 MB) of the unpaged list, and fails
the check with "answer too large" past that.

What it changes: it creates a few books whose author is "Verify Deployment <run id>" and whose
ISBNs start with VD-<run id>-, and deletes them all at the end, also after a failure or Ctrl-C.
It never changes any other book. One check sends a wrong password once: it counts towards the
user's failed sign-ins (a right one follows at once).

Examples:
  VERIFY_PASSWORD=demo npm run verify:deployment
  npm run verify:deployment -- https://abc123.execute-api.eu-west-1.amazonaws.com/prod --user alice`;

/**
 * The checked base URL: http(s), no query or fragment, no trailing slash, not the ApiUrl itself,
 * and plain http:// only to loopback unless allowed.
 */
export const parseBaseUrl = (text: string, allowInsecureHttp = false): string => {
  if (!URL.canParse(text)) throw new UsageError(`"${text}" is not a URL`);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`"${text}" is not an http(s) URL`);
  if (url.search || url.hash || text.includes('?') || text.includes('#'))
    throw new UsageError(`"${text}" has a query or fragment; give the base URL alone`);
  if (url.username || url.password)
    throw new UsageError('credentials do not belong in the URL: use --user and VERIFY_PASSWORD');
  checkTransport(url, allowInsecureHttp);
  refuseApiPath(url, 'the URL');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};

/** An origin as a browser sends it in `Origin`: http(s), host, optional port, nothing after. */
const isOrigin = (text: string) =>
  URL.canParse(text) && /^https?:$/.test(new URL(text).protocol) && new URL(text).origin === text;

/** The options, or undefined when the help was asked for (and printed). Throws UsageError for a wrong command. */
export const parseOptions = (args: string[], env: NodeJS.ProcessEnv = process.env): VerifyOptions | undefined => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    allowPositionals: true,
    args,
    options: {
      user: { type: 'string' },
      reader: { type: 'string' },
      origin: { type: 'string' },
      'skip-gateway-responses': { type: 'boolean', default: false },
      [ALLOW_INSECURE_HTTP]: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return undefined;
  const [given, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`one base URL only; also got ${extra.join(' ')}`);
  const found = given === undefined ? findLocalApi(env) : undefined;
  const username = parsed.values.user ?? DEFAULT_USER;
  if (username === '') throw new UsageError('--user needs a name');
  const reader = parsed.values.reader;
  if (reader === '') throw new UsageError('--reader needs a name');
  const origin = parsed.values.origin;
  if (origin !== undefined && !isOrigin(origin))
    throw new UsageError(
      `--origin "${origin}" is not an origin: scheme, host and optional port, as https://app.example.com`,
    );
  return {
    baseUrl: parseBaseUrl(given ?? (found as { url: string }).url, parsed.values[ALLOW_INSECURE_HTTP] ?? false),
    username,
    skipGatewayResponses: parsed.values['skip-gateway-responses'] ?? false,
    ...(found && { unreachableHint: found.unreachableHint }),
    ...(origin !== undefined && { origin }),
    ...(reader !== undefined && { reader }),
  };
};

/** The reader's password: its variable, else a prompt (stdin, when piped, carries the main user's). */
export const readReaderPassword = async (username: string): Promise<string> => {
  const fromEnvironment = process.env[READER_PASSWORD_VARIABLE];
  if (fromEnvironment) return fromEnvironment;
  if (process.stdin.isTTY) return promptHidden(`Password for ${username} (the reader): `);
  throw new UsageError(`--reader needs ${READER_PASSWORD_VARIABLE}, or a terminal to ask for the password`);
};

/** The password: VERIFY_PASSWORD, else piped stdin, else a prompt that does not echo. */
export const readVerifyPassword = (username: string): Promise<string> =>
  readToolPassword(process.env[PASSWORD_VARIABLE], username);
