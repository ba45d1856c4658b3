import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../ops/migrations/run';
import type { MigrationStep } from '../../ops/migrations/step';
import { MIGRATION_STEPS } from '../../ops/migrations/steps';
import { ID_BLOCKS_KEY } from '../../shared/store/books/book-items';
import { schemaVersionOf } from '../../shared/store/books/schema-version';
import { createTestTables } from '../support/dynamodb';

/**
 * The upgrade's phases on Dynoxide: a table the last release serves gets only the `before` steps
 * until the deploy (`data:migrate --phase before`); `--phase after` runs the rest.
 */
describe('migration phases', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  beforeAll(async () => {
    tables = await createTestTables();
  });
  const ran: string[] = [];
  const step = (version: number, phase: MigrationStep['phase']): MigrationStep => ({
    version,
    name: `${phase}${version}`,
    phase,
    summary: `a ${phase} step`,
    run: async () => {
      ran.push(`${phase}${version}`);
    },
  });
  const steps = [...MIGRATION_STEPS, step(2, 'before'), step(3, 'after'), step(4, 'before')];
  const versionOf = async () =>
    schemaVersionOf(
      (await tables.documentClient.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }))).Item,
    );

  it("before: runs the due steps up to the first 'after' one and names those left; after: the rest", async () => {
    const before = await runMigrations(tables.documentClient, tables.names.books, { steps, phase: 'before' });
    expect(before).toStrictEqual({
      from: 1,
      to: 2,
      due: ['before2', 'after3', 'before4'],
      ran: ['before2'],
      skipped: ['after3', 'before4'],
    });
    expect(await versionOf()).toBe(2);
    const after = await runMigrations(tables.documentClient, tables.names.books, { steps, phase: 'after' });
    expect(after).toMatchObject({ from: 2, to: 4, ran: ['after3', 'before4'], skipped: [] });
    expect(ran).toStrictEqual(['before2', 'after3', 'before4']);
  });
});
