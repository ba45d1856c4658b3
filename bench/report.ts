import {
  ASSUMED_DYNAMODB_CALL_MS,
  bestMemoryMb,
  digestChallengeLegCostPerMillion,
  durationMs,
  dynamoCostPerMillion,
  lambdaCostPerMillion,
  PRICES,
  PRICES_AS_OF,
} from './cost';
import type { CallSummary } from './dynamodb-meter';
import type { LatencyResult } from './latency';
import { markdownTable } from './markdown';
import type { ScalingRow } from './scaling';

/** The performance goal: every function within this factor of the floor. */
const GOAL_RATIO = 1.15;

export interface SizeRow {
  name: string;
  bytes: number;
  /** Median CPU time of a fresh-process import (the goal's measure). */
  importMs: number;
  /** Median over rounds of this import's CPU time / the floor's in the same round. */
  importRatio: number;
  /** Largest additions over the floor: [package, bytes]. */
  extras: [string, number][];
  /** Largest savings against the floor (the bundling's swaps): [package, bytes], bytes < 0. */
  savings: [string, number][];
}

export interface RouteRow {
  function: string;
  label: string;
  calls: CallSummary;
  why: string;
  latency?: LatencyResult;
}

export interface BenchResults {
  date: string;
  environment: string;
  importRuns: number;
  requests: number;
  floor: SizeRow;
  functions: SizeRow[];
  routes: RouteRow[];
  /** The authorizer's extra calls on the first request of a container (nonce key). */
  coldAuthorizer?: CallSummary;
  scaling: ScalingRow[];
  stackMemoryMb: number;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(2);
const ratio = (value: number, base: number) => `${(value / base).toFixed(3)}×`;
const units = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const dollars = (value: number) => `$${value.toFixed(2)}`;

/** Functions over the goal, in size or import time. */
export const overGoal = (results: BenchResults): string[] =>
  results.functions
    .filter((f) => f.bytes > results.floor.bytes * GOAL_RATIO || f.importRatio > GOAL_RATIO)
    .map((f) => f.name);

const sizeSection = (r: BenchResults) => {
  const over = overGoal(r);
  const rows = [r.floor, ...r.functions].map((f) => [
    f.name === r.floor.name ? `**${f.name}**` : f.name,
    kb(f.bytes),
    ratio(f.bytes, r.floor.bytes),
    ms(f.importMs),
    `${f.importRatio.toFixed(3)}×`,
    f.extras.map(([pkg, bytes]) => `${pkg} ${kb(bytes)}`).join(', ') || '—',
    f.savings.map(([pkg, bytes]) => `${pkg} ${kb(bytes)}`).join(', ') || '—',
  ]);
  return [
    '### Bundle size and import time, against the floor',
    '',
    `Import: median CPU time of ${r.importRuns} interleaved fresh \`node\` processes; ratios are medians of per-round ratios to the floor.`,
    '',
    markdownTable(
      [
        'function',
        'bundle KB',
        'size × floor',
        'import CPU ms',
        'import × floor',
        'largest additions over the floor (KB)',
        'largest savings against the floor (KB)',
      ],
      rows,
    ),
    '',
    over.length === 0
      ? `Goal (every function ≤ ${GOAL_RATIO}× the floor in size and import time): **met**.`
      : `Goal (every function ≤ ${GOAL_RATIO}× the floor in size and import time): **not met** by ${over.join(', ')}.`,
  ].join('\n');
};

const latencySection = (r: BenchResults) =>
  [
    `### Warm latency through the handler vs the raw SDK calls it wraps (Dynoxide, ${r.requests} requests)`,
    '',
    markdownTable(
      ['function', 'request', 'p50 ms', 'p99 ms', 'raw SDK p50', 'raw SDK p99', 'p50 × raw', 'CPU ms/request'],
      r.routes
        .filter((row) => row.latency)
        .map((row) => {
          const l = row.latency as LatencyResult;
          return [
            row.function,
            row.label,
            ms(l.p50),
            ms(l.p99),
            ms(l.rawP50),
            ms(l.rawP99),
            ratio(l.p50, l.rawP50),
            ms(l.cpuMs),
          ];
        }),
    ),
  ].join('\n');

/** The round-trip rows; `withWhy` adds why each count is the minimum (`--round-trips` prints it). */
export const roundTripTable = (routes: RouteRow[], { withWhy = false } = {}) =>
  markdownTable(
    [
      'function',
      'request',
      'calls',
      'operations',
      'read units',
      'write units',
      ...(withWhy ? ['why this is the minimum'] : []),
    ],
    routes.map((row) => [
      row.function,
      row.label,
      String(row.calls.roundTrips),
      row.calls.operations,
      units(row.calls.reads),
      units(row.calls.writes),
      ...(withWhy ? [row.why] : []),
    ]),
  );

const callsSection = (r: BenchResults) =>
  [
    '### DynamoDB round trips and consumed capacity per request',
    '',
    'Counted on the wire by the metering proxy on warm containers (a book function container’s first request adds one `GetItem`, its schema check); creates averaged over 100 requests of one container. The units are the local engine’s accounting, which DynamoDB’s billing need not match. `npm run bench -- --round-trips` prints this table alone, with why each count is the minimum.',
    '',
    roundTripTable(r.routes),
    ...(r.coldAuthorizer
      ? [
          '',
          `First request of an authorizer container: + ${r.coldAuthorizer.operations} (${units(r.coldAuthorizer.reads)} read unit${r.coldAuthorizer.reads === 1 ? '' : 's'}) to load the nonce key, once per container.`,
        ]
      : []),
  ].join('\n');

const scalingSection = (r: BenchResults) => {
  const sizes = [...new Set(r.scaling.map((row) => row.size))];
  const labels = [...new Set(r.scaling.map((row) => row.label))];
  const cell = (label: string, size: number) => {
    const row = r.scaling.find((x) => x.label === label && x.size === size);
    if (!row) return '—';
    const outcome = row.status === 200 ? `${row.books} books` : `**${row.status}**`;
    return `${outcome}, ${row.roundTrips} call${row.roundTrips === 1 ? '' : 's'}, ${units(row.capacity)} RCU`;
  };
  return [
    '### List capacity against table size (fixed number of matches)',
    '',
    markdownTable(
      ['query', ...sizes.map((s) => `${s.toLocaleString('en')} books`)],
      labels.map((label) => [label, ...sizes.map((size) => cell(label, size))]),
    ),
    '',
    'Filtered queries read only their matches, whatever the table size; the unfiltered list reads one id range per Query (the bench raises the list cap to list every size whole).',
  ].join('\n');
};

/**
 * One GET /api/books/{id} with Digest, as a client pays it: with `nextnonce` it is the route's row;
 * without, each request first takes a 401 leg (a gateway request and an authorizer call).
 */
const digestLegRows = (r: BenchResults, rows: string[][], authCpu: number): string[][] => {
  const getBook = rows.find((row) => row[0] === 'GetBook');
  if (!getBook) return [];
  const total = Number(String(getBook.at(-1)).replace(/[*$]/g, ''));
  const leg = digestChallengeLegCostPerMillion(authCpu, r.stackMemoryMb);
  const row = (request: string, extra: number, gateway: number) => [
    'GetBook',
    request,
    '—',
    '—',
    '—',
    extra === 0 ? 'as above' : `+ ${dollars(extra - PRICES.restApiPerMillion)} (challenge)`,
    dollars(gateway),
    `**${dollars(total + extra)}**`,
  ];
  return [
    row('Digest, nextnonce or nonce reused: no 401 leg', 0, PRICES.restApiPerMillion),
    row('Digest, a fresh challenge each time: 401 leg first', leg, 2 * PRICES.restApiPerMillion),
  ];
};

const costSection = (r: BenchResults) => {
  const authorizer = r.routes.find((row) => row.function === 'Authorizer' && row.latency);
  const digest = r.routes.find((row) => row.function === 'Authorizer' && row.label.startsWith('Digest'));
  const authCpu = authorizer?.latency?.cpuMs ?? 0;
  // Every protected request also runs the authorizer (no result cache); with Digest it reads the user and counts the nonce's use.
  const authCalls = digest?.calls ?? { roundTrips: 2, reads: 0.5, writes: 1 };
  const perRequestAuth =
    lambdaCostPerMillion(durationMs(authCpu, authCalls.roundTrips, r.stackMemoryMb), r.stackMemoryMb) +
    dynamoCostPerMillion(authCalls.reads, authCalls.writes);
  const rows = r.routes
    .filter((row) => row.latency)
    .map((row) => {
      const isAuthorizer = row.function === 'Authorizer';
      const calls = isAuthorizer ? authCalls : row.calls;
      const cpu = (row.latency as LatencyResult).cpuMs;
      const at = (m: number) => durationMs(cpu, calls.roundTrips, m);
      const best = bestMemoryMb(cpu, calls.roundTrips);
      const product = (m: number) => m * at(m) ** 2;
      const lambda = lambdaCostPerMillion(at(r.stackMemoryMb), r.stackMemoryMb);
      const dynamo = dynamoCostPerMillion(calls.reads, calls.writes);
      const total = isAuthorizer ? lambda + dynamo : lambda + dynamo + perRequestAuth + PRICES.restApiPerMillion;
      return [
        row.function,
        isAuthorizer ? 'Digest answer (runs before every protected request)' : row.label,
        `${best} MB (${r.stackMemoryMb} MB: +${((product(r.stackMemoryMb) / product(best) - 1) * 100).toFixed(0)}%)`,
        dollars(lambda),
        dollars(dynamo),
        isAuthorizer ? '—' : dollars(perRequestAuth),
        isAuthorizer ? '—' : dollars(PRICES.restApiPerMillion),
        `**${dollars(total)}**`,
      ];
    });
  rows.push(...digestLegRows(r, rows, authCpu));
  return [
    '### Memory and cost per million requests (derived)',
    '',
    `Derived, not measured on Lambda: the CPU time per request above, stretched by Lambda's CPU share at each memory size, plus an **assumed** ${ASSUMED_DYNAMODB_CALL_MS} ms per DynamoDB call (\`bench/cost.ts\`). Prices: us-east-1 on-demand as of ${PRICES_AS_OF}: Lambda arm64 $${PRICES.lambdaArmGbSecond}/GB-s + $${PRICES.lambdaPerMillionRequests}/M requests; DynamoDB $${PRICES.dynamoPerMillionReads}/M read units, $${PRICES.dynamoPerMillionWrites}/M write units; REST API $${PRICES.restApiPerMillion}/M. At ${r.stackMemoryMb} MB, warm, with a Digest authorizer call per request; data transfer, logs, storage and cold starts excluded.`,
    '',
    markdownTable(
      [
        'function',
        'request',
        'lowest cost × duration',
        'Lambda',
        'DynamoDB',
        'authorizer',
        'API Gateway',
        'total / 1M',
      ],
      rows,
    ),
  ].join('\n');
};

export const renderReport = (r: BenchResults): string =>
  [
    `_Measured ${r.date} on ${r.environment}. Regenerate with \`npm run bench\`._`,
    '',
    sizeSection(r),
    '',
    latencySection(r),
    '',
    callsSection(r),
    '',
    scalingSection(r),
    '',
    costSection(r),
    '',
  ].join('\n');

export const BLOCK_START = '<!-- bench:start -->';
export const BLOCK_END = '<!-- bench:end -->';

/** docs/benchmarks.md with its generated block replaced; unchanged when the markers are missing. */
export const withBenchBlock = (readme: string, report: string): string => {
  const start = readme.indexOf(BLOCK_START);
  const end = readme.indexOf(BLOCK_END);
  if (start < 0 || end < start) return readme;
  return `${readme.slice(0, start + BLOCK_START.length)}\n${report}\n${readme.slice(end)}`;
};
