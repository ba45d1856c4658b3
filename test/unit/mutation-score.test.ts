import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { areaScores, MUTATION_GOALS } from '../../tools/mutation-score';
import { FUNCTION_TESTS, STORE_TESTS } from '../../vitest.stryker.config';
import { PROJECT_ROOT } from '../support/source-files';

const mutants = (...statuses: string[]) => ({ mutants: statuses.map((status) => ({ status })) });

describe("each area's mutation score, held to its own goal", () => {
  const report = {
    files: {
      'shared/auth/digest.ts': mutants('Killed', 'Killed', 'Timeout', 'Survived'),
      'shared/books/cursor.ts': mutants('Killed', 'NoCoverage', 'Survived', 'CompileError', 'Ignored'),
      'shared/books-extra/x.ts': mutants('Survived'),
    },
  };

  it('counts killed and timed-out mutants as detected, survived and uncovered as not, the rest not at all', () => {
    const [auth, books] = areaScores(report, ['auth', 'books']);
    expect(auth).toMatchObject({ area: 'auth', detected: 3, undetected: 1, score: 75 });
    expect(books).toMatchObject({ area: 'books', detected: 1, undetected: 2 });
    expect(books?.score).toBeCloseTo(100 / 3);
  });

  it('takes each goal from mutation-goals.json', () => {
    expect(areaScores(report, ['auth'])[0]?.goal).toBe(MUTATION_GOALS.auth);
    // Goals only rise: each was set from a measured score, a few points below it.
    expect(MUTATION_GOALS.books).toBeGreaterThanOrEqual(95);
    expect(MUTATION_GOALS.auth).toBeGreaterThanOrEqual(93);
    expect(MUTATION_GOALS.http).toBeGreaterThanOrEqual(93);
    expect(MUTATION_GOALS.store).toBeGreaterThanOrEqual(95);
  });

  it('finds the functions and the settings module outside the folders of shared/', () => {
    const [functions, config] = areaScores(
      { files: { 'functions/books/get.ts': mutants('Survived'), 'shared/config.ts': mutants('Killed') } },
      ['functions', 'config'],
    );
    expect(functions).toMatchObject({ detected: 0, undetected: 1 });
    expect(config).toMatchObject({ detected: 1, undetected: 0 });
  });

  it('gives an area without mutants full marks rather than dividing by zero', () => {
    expect(areaScores({ files: {} }, ['http'])[0]).toMatchObject({ score: 100, detected: 0, undetected: 0 });
  });
});

describe('the tests the mutation run takes for shared/store and functions/', () => {
  it('are files that exist, so a renamed test cannot drop out of the score unnoticed', () => {
    const named = [...STORE_TESTS, ...FUNCTION_TESTS];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((file) => !existsSync(join(PROJECT_ROOT, file)))).toEqual([]);
  });

  it('are the store tests of today, each named, none by a glob', () => {
    expect([...STORE_TESTS].sort()).toEqual([
      'test/integration/book-store-conflicts.test.ts',
      'test/integration/book-store-ranges.test.ts',
      'test/integration/dynamodb-auth-store.test.ts',
      'test/integration/dynamodb-book-store.test.ts',
      'test/integration/dynamodb-secret-store.test.ts',
      'test/integration/id-blocks.test.ts',
    ]);
  });

  it('are the ones Stryker’s type checker compiles (tsconfig.stryker.json)', () => {
    const { include } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.stryker.json'), 'utf8')) as {
      include: string[];
    };
    expect(include.filter((entry) => entry.startsWith('test/integration/')).sort()).toEqual(
      [...STORE_TESTS, ...FUNCTION_TESTS].sort(),
    );
    expect(include.filter((entry) => entry.includes('*') && entry.startsWith('test/integration/'))).toEqual([]);
  });
});
