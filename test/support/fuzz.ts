import fc from 'fast-check';
import { encodeCursor } from '../../shared/books/cursor';

/**
 * The seed of a fuzz run: FUZZ_SEED replays one, otherwise every run draws a new one, so CI keeps
 * exploring. The test titles carry it and fast-check repeats it (with the shrunk case) on a failure:
 * `FUZZ_SEED=<seed> npx vitest run <file>` replays that run.
 */
export const fuzzSeed = (): number => {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);
  return seed;
};

/** Names every JavaScript object inherits: a map keyed by client input must not trip over them. */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
  'prototype',
] as const;

/** Text that percent-encoding and form-encoding treat specially, raw or escaped. */
const ESCAPES = ['%', '%2', '%zz', '%00', '%25', '%E2%82', '%C3%A9', '+', '%2B', '&', '=', ';', '#', '[]', '\u0000'];

const LIST_PARAMETERS = ['author', 'year', 'limit', 'cursor'] as const;

const queryName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LIST_PARAMETERS) },
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...ESCAPES) },
  { weight: 1, arbitrary: fc.constantFrom(...LIST_PARAMETERS.map((name) => `${name}[]`), 'Author', 'YEAR', ' limit') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

const queryValue = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('1965', '+1965', '-5', '1e3', '', ' 1965', '99999999999999999') },
  { weight: 2, arbitrary: fc.constantFrom('1', '3', '1000', '1001', '0', '01', '-1') },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 60 }).map(encodeCursor) },
  { weight: 1, arbitrary: fc.constantFrom('MTI=', 'not a cursor', encodeCursor(Number.MAX_SAFE_INTEGER)) },
  { weight: 2, arbitrary: fc.constantFrom('Frank Herbert', 'frank herbert', 'ÉMILE ZOLA', 'E\u0301mile Zola') },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...ESCAPES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** A query string as a list of name/value pairs: names repeat, and order is kept. */
const queryPairs = fc.array(fc.tuple(queryName, queryValue), { maxLength: 6 });

/**
 * The query as a client would put it on the request line: each pair either percent-encoded, or sent
 * as it is (so malformed escapes, `+`, `&` and `#` inside a value reach the server raw), or with a
 * name and no `=` at all.
 */
export const queryText = fc
  .tuple(queryPairs, fc.array(fc.constantFrom('encoded', 'raw', 'bare'), { minLength: 6, maxLength: 6 }))
  .map(([pairs, forms]) =>
    pairs
      .map(([name, value], i) => {
        const form = forms[i];
        if (form === 'raw') return `${name}=${value}`;
        if (form === 'bare') return encodeURIComponent(name);
        return `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
      })
      .join('&'),
  );

/** The request target `/path?query` as a client's URL parser sends it (non-ASCII and spaces escaped, `#` ends it). */
export const requestTarget = (path: string, query: string): string => {
  const url = new URL(`${path}${query ? `?${query}` : ''}`, 'http://127.0.0.1');
  return `${url.pathname}${url.search}`;
};
