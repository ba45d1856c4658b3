import { baseline } from './0001-baseline';
import type { MigrationStep } from './step';

/** Every step in order; the last one's version is SCHEMA_VERSION (shared/store/books/schema-version.ts). */
export const MIGRATION_STEPS: readonly MigrationStep[] = [baseline];
