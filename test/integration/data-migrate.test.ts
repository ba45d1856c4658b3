import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/tables';
import { ID_BLOCKS_KEY } from '../../shared/store/books/book-items';
import { SCHEMA_VERSION } from '../../shared/store/books/schema-version';
import { BOOKS_TABLE } from '../../shared/store/tables';
import { createTestTables } from '../support/dynamodb';
import { runTool } from '../support/tool-process';

/** `npm run data:migrate` (tools/migrate.ts) in its own process against Dynoxide. */
describe('npm run data:migrate', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  beforeAll(async () => {
    tables = await createTestTables();
  });

  it('stamps a table from before schemaVersion, step by step, and a second run changes nothing', async () => {
    const name = `migrate-${randomUUID().slice(0, 8)}`;
    await tables.client.send(new CreateTableCommand(createTableInput(name, BOOKS_TABLE)));
    await tables.documentClient.send(new PutCommand({ TableName: name, Item: { ...ID_BLOCKS_KEY, highMark: 4 } }));
    const target = ['--endpoint', tables.endpoint, '--table', name];

    const first = await runTool('migrate', target);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('step 1 (baseline, before the deploy): stamps schemaVersion 1');
    expect(first.stdout).toBe(`Table "${name}" moved from schemaVersion 0 to ${SCHEMA_VERSION} (ran: baseline).\n`);
    const { Item } = await tables.documentClient.send(new GetCommand({ TableName: name, Key: ID_BLOCKS_KEY }));
    expect(Item).toStrictEqual({ ...ID_BLOCKS_KEY, highMark: 4, schemaVersion: SCHEMA_VERSION });

    const again = await runTool('migrate', target);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`Table "${name}" is at schemaVersion ${SCHEMA_VERSION}: nothing to do.\n`);
  }, 60_000);

  it('explains itself with --help, listing its steps, and refuses --aws without --table or a missing table', async () => {
    const help = await runTool('migrate', ['--help']);
    expect(help.stdout).toContain('Usage: npm run data:migrate');
    expect(help.stdout).toContain('  1  before baseline: ');
    expect(help.stdout).toContain('--phase <phase>');
    expect((await runTool('migrate', ['--phase', 'during'])).code).toBe(2);
    expect((await runTool('migrate', ['--aws'])).code).toBe(2);
    const missing = await runTool('migrate', ['--endpoint', tables.endpoint, '--table', 'no-such-table']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such table');
  }, 60_000);
});
