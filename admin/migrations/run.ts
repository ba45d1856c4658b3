import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCKS_KEY } from '../../shared/store/books/book-items';
import { schemaVersionOf, stampSchemaVersion } from '../../shared/store/books/schema-version';
import { isConditionalCheckFailure } from '../../shared/store/errors';
import type { MigrationStep } from './step';
import { MIGRATION_STEPS } from './steps';

export interface MigrationReport {
  /** The table's schemaVersion before this run (0: never stamped). */
  from: number;
  to: number;
  /** The steps this run ran, by name. */
  ran: string[];
}

const versionOf = async (client: DynamoDBDocumentClient, tableName: string) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: ID_BLOCKS_KEY, ConsistentRead: true }),
  );
  return schemaVersionOf(Item);
};

/**
 * Runs, in order, every step above the table's schemaVersion and stamps each one's version as it
 * ends, so an interrupted run continues where it stopped and a finished one does nothing.
 */
export const runMigrations = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  {
    log = () => undefined,
    steps = MIGRATION_STEPS,
  }: { log?: (line: string) => void; steps?: readonly MigrationStep[] } = {},
): Promise<MigrationReport> => {
  const from = await versionOf(client, tableName);
  const report: MigrationReport = { from, to: from, ran: [] };
  for (const step of steps.filter(({ version }) => version > from)) {
    log(`step ${step.version} (${step.name}): ${step.summary}`);
    await step.run(client, tableName, log);
    await client.send(stampSchemaVersion(tableName, step.version)).catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error; // a concurrent run got there first
    });
    report.to = step.version;
    report.ran.push(step.name);
  }
  return report;
};
