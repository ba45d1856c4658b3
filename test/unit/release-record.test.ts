import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATION_STEPS } from '../../ops/migrations/steps';
import { OLDEST_SERVED_SCHEMA_VERSION, SCHEMA_VERSION } from '../../shared/store/books/schema-version';
import { lastRelease } from '../../tools/upgrade/release';

/** The last release as recorded (releases.json, CHANGELOG.md, package.json), and what the code serves of it. */
describe('the release record', () => {
  const release = lastRelease();

  it('names a full commit, a version the CHANGELOG has an entry for, and an Unreleased section above it', () => {
    expect(release.commit).toMatch(/^[0-9a-f]{40}$/);
    const changelog = readFileSync('CHANGELOG.md', 'utf8');
    const unreleased = changelog.indexOf('\n## [Unreleased]');
    expect(unreleased).toBeGreaterThan(0);
    expect(changelog.indexOf(`\n## [${release.version}] - `)).toBeGreaterThan(unreleased);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(version).toBe(release.version);
  });

  it("serves the last release's table shape, so the deploy can come before the 'after' steps", () => {
    expect(OLDEST_SERVED_SCHEMA_VERSION).toBeLessThanOrEqual(release.schemaVersion);
    expect(release.schemaVersion).toBeLessThanOrEqual(SCHEMA_VERSION);
    expect(MIGRATION_STEPS.every((step) => step.phase === 'before' || step.phase === 'after')).toBe(true);
  });
});
