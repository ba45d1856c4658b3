import { InterruptedError } from './http';
import type { Check, CheckContext, CheckResult } from './types';

const GATEWAY_SKIP_REASON =
  'needs the stack’s gateway responses (401 challenges, unknown-route 404), skipped by --skip-gateway-responses';

export interface RunOptions {
  skipGatewayResponses: boolean;
  /** Aborted on SIGINT or SIGTERM: no further check starts. */
  signal?: AbortSignal;
  /** Called as each check starts and ends: the report's progress and lines. */
  onStart?: (check: Check) => void;
  onResult?: (result: CheckResult) => void;
}

/** Why a check does not run, or undefined when it does. */
const skipReason = (check: Check, options: RunOptions, passed: ReadonlySet<string>, checks: readonly Check[]) => {
  if (check.needsGatewayResponses && options.skipGatewayResponses) return GATEWAY_SKIP_REASON;
  const missing = (check.needs ?? []).filter((id) => !passed.has(id));
  if (missing.length === 0) return undefined;
  const names = missing.map((id) => `"${checks.find((other) => other.id === id)?.name ?? id}"`);
  return `needs ${names.join(', ')}, which did not pass`;
};

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs the checks in order, each once. A check whose prerequisites did not pass is skipped with
 * the reason; a failure is a result, never an exception. Stops at an interruption (the check under
 * way is then not reported): the caller cleans up either way.
 */
export const runChecks = async (checks: readonly Check[], context: CheckContext, options: RunOptions) => {
  const results: CheckResult[] = [];
  const passed = new Set<string>();
  let interrupted = false;
  for (const check of checks) {
    if (options.signal?.aborted) {
      interrupted = true;
      break;
    }
    const reason = skipReason(check, options, passed, checks);
    let result: CheckResult;
    if (reason) {
      result = { name: check.name, outcome: 'SKIP', detail: reason };
    } else {
      options.onStart?.(check);
      try {
        const detail = await check.run(context);
        result = { name: check.name, outcome: 'PASS', ...(detail && { detail }) };
        passed.add(check.id);
      } catch (error) {
        if (error instanceof InterruptedError) {
          interrupted = true;
          break;
        }
        result = { name: check.name, outcome: 'FAIL', detail: reasonOf(error) };
      }
    }
    results.push(result);
    options.onResult?.(result);
  }
  return { results, interrupted };
};
