import { defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant of shared/ (see stryker.config.mjs). Static mutants
 * (a changed constant, such as a schema or a message, evaluated at import) run every test in here,
 * so the set is kept to the fast unit tests: in-memory stores, no server, a second in all. Only
 * when shared/store or functions/ is mutated do their own tests against Dynoxide join (nothing else
 * can kill a mutant of the DynamoDB adapter or a handler). Slow layers (end-to-end, reliability, bench, infra,
 * static) stay out: they cover shared/ too, but at seconds per mutant.
 */
/**
 * Listed by name, not globbed: a renamed file must fail test/unit/mutation-score.test.ts, not drop out of
 * the score unnoticed.
 */
export const STORE_TESTS = [
  'test/integration/dynamodb-book-store.test.ts',
  'test/integration/book-store-ranges.test.ts',
  'test/integration/book-store-conflicts.test.ts',
  'test/integration/id-blocks.test.ts',
  'test/integration/dynamodb-auth-store.test.ts',
  'test/integration/dynamodb-secret-store.test.ts',
] as const;
/** The functions' own tests: each runs a handler in process against Dynoxide, as Lambda would. */
export const FUNCTION_TESTS = [
  'test/integration/authorizer-policy.test.ts',
  'test/integration/authorizer-faults.test.ts',
  'test/integration/list-variants.test.ts',
  'test/integration/custom-domain-digest.test.ts',
  'test/integration/change-events-handler.test.ts',
] as const;
const areas = (process.env.MUTATION_AREAS ?? '').split(',');
const mutatingStore = areas.includes('store');
const mutatingFunctions = areas.includes('functions');
const databaseTests = [...(mutatingStore ? STORE_TESTS : []), ...(mutatingFunctions ? FUNCTION_TESTS : [])];

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', ...databaseTests],
    globalSetup: databaseTests.length > 0 ? ['test/support/global-setup.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
