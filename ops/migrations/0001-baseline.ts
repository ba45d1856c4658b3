import type { MigrationStep } from './step';

/** The first release's shape: id ranges with end marks, two author shards, byAuthorYear. Nothing to change; the runner stamps the version. */
export const baseline: MigrationStep = {
  version: 1,
  name: 'baseline',
  phase: 'before',
  summary: 'stamps schemaVersion 1 on a new table or one from before the version existed',
  run: async () => undefined,
};
