import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { DEFAULTS, toEnvironment } from '../shared/config';

/**
 * What a fresh Lambda runtime does at init: a new process, then `await import()` of the bundle,
 * module init included. Reports wall time and this process's CPU time over the import.
 */
const PROBE = `
const url = process.argv[1];
// Lambda's runtime defines this global before it loads a handler; a streaming one calls it at import.
globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const cpu = process.cpuUsage();
const start = performance.now();
await import(url);
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify([wall, (used.user + used.system) / 1000]));
`;

/** The environment a function's module scope may read; nothing is called over the network at import. */
const IMPORT_ENV = {
  ...toEnvironment({
    region: 'us-east-1',
    booksTableName: DEFAULTS.tableNames.books,
    authTableName: DEFAULTS.tableNames.auth,
    serviceName: DEFAULTS.serviceName,
  }),
  // Node 20 here, 22/24 on Lambda: the SDK's one-off "upgrade Node" warning would be timed otherwise.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface ImportTime {
  wallMs: number;
  cpuMs: number;
}

/** Medians over the rounds, plus every round's sample (in round order) for paired comparisons. */
export interface ImportTimes extends ImportTime {
  samples: ImportTime[];
}

/**
 * The median, over rounds, of `file`'s time divided by `base`'s time in the same round. Pairing
 * within a round cancels load that drifts between rounds, which a ratio of two medians does not.
 */
export const pairedRatio = (file: ImportTimes, base: ImportTimes, pick: (t: ImportTime) => number): number =>
  median(file.samples.map((sample, round) => pick(sample) / pick(base.samples[round] as ImportTime)));

const importOnce = (file: string): ImportTime => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...IMPORT_ENV },
  });
  let measured: unknown;
  try {
    measured = JSON.parse(run.stdout);
  } catch {
    measured = undefined;
  }
  if (run.status !== 0 || !Array.isArray(measured)) throw new Error(`importing ${file} failed: ${run.stderr}`);
  const [wallMs, cpuMs] = measured as [number, number];
  return { wallMs, cpuMs };
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Median import time per file over `runs` rounds. Rounds are interleaved (every file once per
 * round, in a rotating order), so drift in machine load hits every bundle alike. Both medians are
 * kept: wall time is what a cold start waits; CPU time is the import's own work, which on a shared
 * machine varies far less than wall time, because waiting for a core is not counted.
 */
export const measureImportTimes = (
  files: string[],
  runs: number,
  onRound?: (round: number) => void,
): Map<string, ImportTimes> => {
  const samples = new Map(files.map((file) => [file, [] as ImportTime[]]));
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < files.length; i++) {
      const file = files[(i + round) % files.length] as string;
      samples.get(file)?.push(importOnce(file));
    }
    onRound?.(round + 1);
  }
  return new Map(
    [...samples].map(([file, values]) => [
      file,
      { wallMs: median(values.map((v) => v.wallMs)), cpuMs: median(values.map((v) => v.cpuMs)), samples: values },
    ]),
  );
};
