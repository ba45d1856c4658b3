import { runTool } from './cli';
import {
  COMMAND,
  checkWrites,
  failures,
  formatSummary,
  leftBooksLine,
  parseLoadOptions,
  runLoad,
  setUpTarget,
} from './load-steps';

/** `npm run load`: a bounded mixed load against the API, then a check that no write was lost. */
const main = async () => {
  const options = parseLoadOptions(process.argv.slice(2));
  if (!options) return;
  const target = await setUpTarget(options);
  // Ctrl-C must not leave the detached npm start (and its Dynoxide) running.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void target.stop().finally(() => process.exit(130)));
  }
  try {
    const summary = await checkWrites(target, await runLoad(target, options));
    console.log(formatSummary(summary, options.json));
    const failed = failures(summary, options);
    for (const failure of failed) console.error(`FAIL: ${failure}`);
    if (failed.length > 0) process.exitCode = 1;
    else console.log('OK: zero 5xx, zero lost writes');
    const left = leftBooksLine(target, summary);
    if (left) console.log(left);
  } finally {
    await target.stop();
  }
};

runTool(COMMAND, main);
