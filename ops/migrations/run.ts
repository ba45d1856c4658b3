import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCKS_KEY } from '../../shared/store/books/book-items';
import { schemaVersionOf, stampSchemaVersion } from '../../shared/store/books/schema-version';
import { isConditionalCheckFailure } from '../../shared/store/errors';
import type { MigrationPhase, MigrationStep } from './step';
import { MIGRATION_STEPS } from './steps';

export interface MigrationReport {
  /** The table's schemaVersion before this run (0: never stamped). */
  from: number;
  to: number;
  /** The steps above `from`, by name. */
  due: string[];
  /** The steps this run ran, by name. */
  ran: string[];
  /** Due steps left for a later phase (an `after` step and those behind it, when running `before`). */
  skipped: string[];
}

const versionOf = async (client: DynamoDBDocumentClient, tableName: string) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: ID_BLOCKS_KEY, ConsistentRead: true }),
  );
  return schemaVersionOf(Item);
};

/**
 * The due steps a phase runs, in order: `before` stops at the first `after` step (the steps behind
 * it wait for it); `after`, or no phase, runs them all. A table never stamped (new, or from before
 * the version existed) has no release serving its shape, so it gets every step whatever the phase.
 */
export const stepsToRun = (due: readonly MigrationStep[], from: number, phase?: MigrationPhase) => {
  if (phase !== 'before' || from === 0) return [...due];
  const firstAfter = due.findIndex((step) => step.phase === 'after');
  return firstAfter === -1 ? [...due] : due.slice(0, firstAfter);
};

/**
 * Runs, in order, the steps above the table's schemaVersion that `phase` allows and stamps each one's
 * version as it ends, so an interrupted run continues where it stopped and a finished one does nothing.
 */
export const runMigrations = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  {
    log = () => undefined,
    steps = MIGRATION_STEPS,
    phase,
  }: { log?: (line: string) => void; steps?: readonly MigrationStep[]; phase?: MigrationPhase } = {},
): Promise<MigrationReport> => {
  const from = await versionOf(client, tableName);
  const due = steps.filter(({ version }) => version > from);
  const running = stepsToRun(due, from, phase);
  const report: MigrationReport = {
    from,
    to: from,
    due: due.map(({ name }) => name),
    ran: [],
    skipped: due.slice(running.length).map(({ name }) => name),
  };
  for (const step of running) {
    log(`step ${step.version} (${step.name}, ${step.phase} the deploy): ${step.summary}`);
    await step.run(client, tableName, log);
    await client.send(stampSchemaVersion(tableName, step.version)).catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error; // a concurrent run got there first
    });
    report.to = step.version;
    report.ran.push(step.name);
  }
  for (const name of report.skipped) log(`step ${name} skipped: it runs after the deploy (--phase after)`);
  return report;
};
