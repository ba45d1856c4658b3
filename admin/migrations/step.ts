import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One numbered step of the books table's schema. A step only adds what the version before can
 * ignore (expand); removing what the version before needs is a later step's job (contract), once no
 * container of that version runs (docs/data-model.md). Each step is idempotent: a re-run finds its work done.
 */
/**
 * When a step runs relative to the deploy of the code that needs it: `before` adds what the new code
 * reads and the running release ignores (expand); `after` changes what only the release before still
 * needs, once none of its containers serve (contract). The runbook is docs/operations.md's "Upgrading".
 */
export type MigrationPhase = 'before' | 'after';

export interface MigrationStep {
  /** The schemaVersion the table has once this step has run. */
  version: number;
  name: string;
  phase: MigrationPhase;
  /** What it does, for `--help` and the progress output. */
  summary: string;
  run(client: DynamoDBDocumentClient, tableName: string, log: (line: string) => void): Promise<void>;
}
