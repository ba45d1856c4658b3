import { runTool, UsageError } from './cli';
import { escapeControl } from './terminal-text';
import { CHECKS } from './verify-deployment/checks';
import { ROLE_CHECKS } from './verify-deployment/checks/roles';
import { CLEANUP_NAME, cleanUp } from './verify-deployment/cleanup';
import { COMMAND, parseOptions, readReaderPassword, readVerifyPassword, USAGE } from './verify-deployment/cli';
import { httpClient } from './verify-deployment/http';
import { preflight } from './verify-deployment/preflight';
import { formatSummary, print, progress } from './verify-deployment/report';
import { newRunId, RunBooks } from './verify-deployment/run-books';
import { runChecks } from './verify-deployment/runner';
import type { CheckResult } from './verify-deployment/types';

/** Exit status of a run stopped by SIGINT or SIGTERM, as a shell reports one stopped by Ctrl-C. */
const INTERRUPTED_STATUS = 130;

const describe = (error: Error) =>
  error instanceof UsageError ? `${escapeControl(error.message)}\n${USAGE}` : escapeControl(error.message);

runTool(
  COMMAND,
  async () => {
    const options = parseOptions(process.argv.slice(2));
    if (!options) return;
    const credentials = { username: options.username, password: await readVerifyPassword(options.username) };
    const reader = options.reader && { username: options.reader, password: await readReaderPassword(options.reader) };

    const interruption = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      if (interruption.signal.aborted) process.exit(INTERRUPTED_STATUS);
      console.error(`\n${signal}: stopping, deleting this run's books (again to quit at once) ...`);
      interruption.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const books = new RunBooks(newRunId());
    const http = httpClient(options.baseUrl, interruption.signal);
    await preflight(http, { baseUrl: options.baseUrl, credentials, unreachableHint: options.unreachableHint });
    console.error(
      `Checking ${options.baseUrl} as ${options.username} (run ${books.runId})` +
        (options.skipGatewayResponses ? ', without the gateway responses' : ''),
    );

    const results: CheckResult[] = [];
    let interrupted = false;
    try {
      const run = await runChecks(
        reader ? [...CHECKS, ...ROLE_CHECKS] : CHECKS,
        {
          baseUrl: options.baseUrl,
          http,
          credentials,
          books,
          seenNonces: new Set(),
          ...(options.origin && { origin: options.origin }),
          ...(reader && { reader }),
        },
        {
          skipGatewayResponses: options.skipGatewayResponses,
          signal: interruption.signal,
          onStart: (check) => progress(check.name),
          onResult: print,
        },
      );
      results.push(...run.results);
      interrupted = run.interrupted;
    } finally {
      // Its own client: the clean-up must run after an interruption has aborted the checks' requests.
      progress(CLEANUP_NAME);
      const cleanup = await cleanUp(httpClient(options.baseUrl, new AbortController().signal), credentials, books);
      results.push(cleanup);
      print(cleanup);
    }
    console.log(formatSummary(results, interrupted));
    process.exitCode = interrupted ? INTERRUPTED_STATUS : results.some((result) => result.outcome === 'FAIL') ? 1 : 0;
  },
  describe,
);
