import { escapeControl } from '../terminal-text';
import type { CheckResult } from './types';

/**
 * The report's lines, on stdout: one per check, `PASS  <name>`, `FAIL  <name>: <reason>` or
 * `SKIP  <name>: <reason>` (a pass may add what it saw after the colon), then one summary line.
 * The detail often quotes the server: its control characters are escaped, so an answer cannot
 * print a line of its own, colour one, or move the cursor over the verdict.
 */
export const formatResult = ({ outcome, name, detail }: CheckResult) =>
  `${outcome}  ${name}${detail ? `: ${escapeControl(detail)}` : ''}`;

const tally = (results: readonly CheckResult[]) => ({
  passed: results.filter((result) => result.outcome === 'PASS').length,
  failed: results.filter((result) => result.outcome === 'FAIL').length,
  skipped: results.filter((result) => result.outcome === 'SKIP').length,
});

export const formatSummary = (results: readonly CheckResult[], interrupted: boolean) => {
  const { passed, failed, skipped } = tally(results);
  const verdict = interrupted ? 'INTERRUPTED' : failed > 0 ? 'FAILED' : 'OK';
  return `${verdict}: ${passed} passed, ${failed} failed, ${skipped} skipped`;
};

/** Progress on a terminal: the check under way, on stderr, overwritten by its result. */
export const progress = (name: string) => {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K… ${name}`);
};

export const print = (result: CheckResult) => {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  console.log(formatResult(result));
};
