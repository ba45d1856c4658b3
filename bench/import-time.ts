import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** What a fresh Lambda runtime does at init: a new process, then `await import()` of the bundle, module init included. */
const PROBE = `
const url = process.argv[1];
const start = performance.now();
await import(url);
process.stdout.write(String(performance.now() - start));
`;

/** The environment a function's module scope may read; nothing is called over the network at import. */
const IMPORT_ENV = {
  AWS_REGION: 'us-east-1',
  BOOKS_TABLE_NAME: 'books',
  AUTH_TABLE_NAME: 'auth',
  POWERTOOLS_SERVICE_NAME: 'book-library',
  // Node 20 here, 22/24 on Lambda: the SDK's one-off "upgrade Node" warning would be timed otherwise.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export const importOnce = (file: string): number => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...IMPORT_ENV },
  });
  const ms = Number(run.stdout);
  if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return ms;
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Median import time per file over `runs` rounds. Rounds are interleaved (every file once per
 * round, in a rotating order), so drift in machine load hits every bundle alike.
 */
export const measureImportTimes = (
  files: string[],
  runs: number,
  onRound?: (round: number) => void,
): Map<string, number> => {
  const samples = new Map(files.map((file) => [file, [] as number[]]));
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < files.length; i++) {
      const file = files[(i + round) % files.length] as string;
      samples.get(file)?.push(importOnce(file));
    }
    onRound?.(round + 1);
  }
  return new Map([...samples].map(([file, values]) => [file, median(values)]));
};
