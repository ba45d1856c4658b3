import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { lambdaContext } from '../local/gateway';
import { bufferedHandler } from '../local/streaming-response';
import type { Scenario } from './scenarios';

export type Handler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * A bundle's handler in this process. Each `instance` is a separate module instance (its own SDK
 * client, built from the environment at its first request), so one bundle can be run against the
 * meter and, separately, straight against DynamoDB. A streaming handler (the list) is invoked as the
 * gateway invokes it and its body collected, so every scenario sees a whole proxy result.
 */
export const loadBundle = async (file: string, instance: string): Promise<Handler> =>
  bufferedHandler((await import(`${pathToFileURL(file).href}?${instance}`)).handler) as Handler;

class UnexpectedResultError extends Error {
  override readonly name = 'UnexpectedResultError';
}

/** Invokes and checks the answer, so the bench never times an error path by mistake. */
export const invoke = async (handler: Handler, scenario: Scenario, i: number): Promise<unknown> => {
  const result = (await handler(scenario.event(i), lambdaContext(scenario.function, randomUUID()))) as {
    statusCode?: number;
    policyDocument?: { Statement: { Effect: string }[] };
  };
  const ok =
    scenario.expectedStatus === 0
      ? result.policyDocument?.Statement[0]?.Effect === 'Allow'
      : result.statusCode === scenario.expectedStatus;
  if (!ok) throw new UnexpectedResultError(`${scenario.label} #${i}: ${JSON.stringify(result).slice(0, 300)}`);
  return result;
};

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

export interface LatencyResult {
  p50: number;
  p99: number;
  rawP50: number;
  rawP99: number;
  /** CPU time of this process per handler request (handler, middy, SDK; not DynamoDB's). */
  cpuMs: number;
  rawCpuMs: number;
}

const timed = async (run: () => Promise<unknown>): Promise<[number, number]> => {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / 1000];
};

/**
 * Warm latency: after `warmup` requests, `requests` handler invocations, each followed by the raw
 * SDK calls it wraps, so both see the same database state and machine load.
 */
export const measureLatency = async (
  handler: Handler,
  scenario: Scenario,
  requests: number,
  warmup: number,
): Promise<LatencyResult> => {
  for (let i = 0; i < warmup; i++) {
    await invoke(handler, scenario, requests + i);
    await scenario.raw(requests + i);
  }
  const wall: number[] = [];
  const rawWall: number[] = [];
  let cpu = 0;
  let rawCpu = 0;
  for (let i = 0; i < requests; i++) {
    const [ms, cpuMs] = await timed(() => invoke(handler, scenario, i));
    const [rawMs, rawCpuMs] = await timed(() => scenario.raw(i));
    wall.push(ms);
    rawWall.push(rawMs);
    cpu += cpuMs;
    rawCpu += rawCpuMs;
  }
  return {
    p50: percentile(wall, 50),
    p99: percentile(wall, 99),
    rawP50: percentile(rawWall, 50),
    rawP99: percentile(rawWall, 99),
    cpuMs: cpu / requests,
    rawCpuMs: rawCpu / requests,
  };
};
