import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One numbered step of the books table's schema. A step only adds what the version before can
 * ignore (expand); removing what the version before needs is a later step's job (contract), once no
 * container of that version runs (docs/data-model.md). Each step is idempotent: a re-run finds its work done.
 */
export interface MigrationStep {
  /** The schemaVersion the table has once this step has run. */
  version: number;
  name: string;
  /** What it does, for `--help` and the progress output. */
  summary: string;
  run(client: DynamoDBDocumentClient, tableName: string, log: (line: string) => void): Promise<void>;
}
