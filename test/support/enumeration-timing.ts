import { performance } from 'node:perf_hooks';
import type { Authenticator } from '../../shared/auth/authenticator';
import type { AuthRequest } from '../../shared/auth/types';

/**
 * Whether a wrong password takes measurably longer for a user than for a name that is nobody's:
 * requests for the two alternate (in a random order within each pair), so drift in the machine's
 * load falls on both alike, and the answer is a distribution-free confidence interval for the
 * median of the paired differences (sign-test order statistics), in microseconds. An interval that
 * contains 0 and is narrow says "no difference larger than this"; one that excludes 0 says "a
 * real difference", whatever the noise.
 */
export interface TimingComparison {
  pairs: number;
  /** Median time of each side, µs. */
  knownMedianUs: number;
  unknownMedianUs: number;
  /** Median of (known − unknown) over the pairs, µs, and its 95 % confidence interval. */
  medianDifferenceUs: number;
  ci95Us: [number, number];
}

const median = (sorted: number[]) => {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * The 95 % interval for the median of `differences`: the k-th smallest and k-th largest, with k
 * from the binomial(n, 1/2) distribution of how many fall below the median (normal approximation,
 * good from a few dozen pairs).
 */
export const medianInterval = (differences: number[]): { median: number; ci95: [number, number] } => {
  const sorted = [...differences].sort((a, b) => a - b);
  const n = sorted.length;
  const k = Math.max(0, Math.floor(n / 2 - (1.96 * Math.sqrt(n)) / 2));
  return { median: median(sorted), ci95: [sorted[k] as number, sorted[n - 1 - k] as number] };
};

const basicRequest = (username: string, password: string): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
});

/** Times `pairs` interleaved wrong passwords for `known` and `unknown`, after `warmup` pairs. */
export const compareWrongPasswordTiming = async (
  authenticator: Authenticator,
  known: string,
  unknown: string,
  { pairs = 600, warmup = 50 }: { pairs?: number; warmup?: number } = {},
): Promise<TimingComparison> => {
  const time = async (username: string, i: number) => {
    const started = performance.now();
    const result = await authenticator.authenticate(basicRequest(username, `wrong-${i}`));
    const elapsed = (performance.now() - started) * 1000;
    if (result.ok) throw new Error('a wrong password was accepted');
    return elapsed;
  };
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  for (let i = 0; i < warmup + pairs; i++) {
    const knownFirst = Math.random() < 0.5;
    const first = await time(knownFirst ? known : unknown, i);
    const second = await time(knownFirst ? unknown : known, i);
    if (i < warmup) continue;
    knownTimes.push(knownFirst ? first : second);
    unknownTimes.push(knownFirst ? second : first);
  }
  const { median: medianDifferenceUs, ci95 } = medianInterval(
    knownTimes.map((t, i) => t - (unknownTimes[i] as number)),
  );
  return {
    pairs,
    knownMedianUs: median([...knownTimes].sort((a, b) => a - b)),
    unknownMedianUs: median([...unknownTimes].sort((a, b) => a - b)),
    medianDifferenceUs,
    ci95Us: ci95,
  };
};

export const describeComparison = (label: string, c: TimingComparison) =>
  `${label}: ${c.pairs} pairs, medians ${c.knownMedianUs.toFixed(0)} µs (user) / ${c.unknownMedianUs.toFixed(0)} µs ` +
  `(nobody), median difference ${c.medianDifferenceUs.toFixed(1)} µs, 95 % CI [${c.ci95Us[0].toFixed(1)}, ${c.ci95Us[1].toFixed(1)}] µs`;
