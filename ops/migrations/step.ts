import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * When a step runs relative to the deploy of the code that needs it: `before` adds what the new code
 * reads and the running release ignores (expand); `after` needs the previous release's containers
 * gone: it brings items to the new shape, or removes what only the release before that one read
 * (contract). Neither removes what the previous release reads, so it can serve again (rollback).
 */
export type MigrationPhase = 'before' | 'after';

/**
 * One numbered step of the books table's schema. A step only adds what the version before can
 * ignore (expand); removing what the version before needs is a later step's job (contract), once no
 * container of that version runs (docs/data-model.md). Each step is idempotent: a re-run finds its work done.
 */
export interface MigrationStep {
  /** The schemaVersion the table has once this step has run. */
  version: number;
  name: string;
  phase: MigrationPhase;
  /** What it does, for `--help` and the progress output. */
  summary: string;
  run(client: DynamoDBDocumentClient, tableName: string, log: (line: string) => void): Promise<void>;
}
