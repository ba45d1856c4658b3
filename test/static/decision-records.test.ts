import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/source-files';

/**
 * docs/decisions/ as architecture decision records: each record has a Status, Context, Decision and
 * Consequences; a superseded record names the record that replaced it, and that record exists and
 * says what it supersedes; the index lists every record with its status.
 */
const FOLDER = join(PROJECT_ROOT, 'docs/decisions');
const REQUIRED = ['Status', 'Context', 'Decision', 'Consequences'] as const;
const RECORDS = readdirSync(FOLDER)
  .filter((file) => file.endsWith('.md') && file !== 'README.md')
  .sort();
const read = (file: string) => readFileSync(join(FOLDER, file), 'utf8');

/** The level-2 headings of a page, outside code blocks. */
const headings = (text: string) =>
  [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^## (.+?)\s*$/gm)].map((match) => match[1] as string);

/** The first line of the Status section: `Accepted.`, `Superseded (date) by [x.md](x.md): ...`. */
const statusOf = (text: string) =>
  text
    .split(/^## Status\s*$/m)[1]
    ?.trim()
    .split('\n')[0] ?? '';

/** What a record's status says: accepted or superseded, and by which record. */
const parseStatus = (line: string): { state: 'Accepted' | 'Superseded' | undefined; by: string | undefined } => {
  const state = /^(Accepted|Superseded)\b/.exec(line)?.[1] as 'Accepted' | 'Superseded' | undefined;
  const by = state === 'Superseded' ? /\bby \[[^\]]+\]\(([\w.-]+\.md)\)/.exec(line)?.[1] : undefined;
  return { state, by };
};

/** Which headings a record lacks (any order beyond Status first is the record's own). */
const missingHeadings = (text: string) => REQUIRED.filter((heading) => !headings(text).includes(heading));

describe('the decision records', () => {
  it('exist', () => {
    expect(RECORDS.length).toBeGreaterThanOrEqual(9);
  });

  it.each(RECORDS)('%s has Status, Context, Decision and Consequences, Status first', (file) => {
    const text = read(file);
    expect(missingHeadings(text)).toEqual([]);
    expect(headings(text)[0]).toBe('Status');
    expect(parseStatus(statusOf(text)).state, `${file}: Status must start with Accepted or Superseded`).toBeDefined();
  });

  it('name, when superseded, a record that exists and says it supersedes them', () => {
    const superseded = RECORDS.map((file) => ({ file, ...parseStatus(statusOf(read(file))) })).filter(
      ({ state }) => state === 'Superseded',
    );
    expect(superseded.map(({ file }) => file)).toContain('sharded-book-keys.md');
    for (const { file, by } of superseded) {
      expect(by, `${file} names no successor`).toBeDefined();
      expect(RECORDS).toContain(by);
      expect(statusOf(read(by as string))).toContain(`Supersedes [${file}](${file})`);
    }
  });

  it('are each listed in the index with the status the record gives', () => {
    const index = read('README.md');
    for (const file of RECORDS) {
      const row = index.split('\n').find((line) => line.startsWith(`| [${file}](${file})`));
      expect(row, `docs/decisions/README.md has no row for ${file}`).toBeDefined();
      const cell = row?.split('|')[2]?.trim() ?? '';
      expect(parseStatus(cell).state).toBe(parseStatus(statusOf(read(file))).state);
    }
  });
});

describe('the checks above', () => {
  it('find a missing heading and read a status line', () => {
    expect(missingHeadings('# T\n\n## Status\n\nAccepted.\n\n## Context\n\n## Decision\n')).toEqual(['Consequences']);
    expect(missingHeadings('```\n## Consequences\n```\n## Status\n## Context\n## Decision')).toEqual(['Consequences']);
    expect(parseStatus('Superseded (2026-11-26) by [b.md](b.md): ...')).toEqual({ state: 'Superseded', by: 'b.md' });
    expect(parseStatus('Accepted.')).toEqual({ state: 'Accepted', by: undefined });
    expect(parseStatus('Proposed.').state).toBeUndefined();
  });
});
