import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { markdownTable } from '../../bench/markdown';
import { PROJECT_ROOT } from '../../infra/bundling';

/** What the project's formatter makes of a Markdown text. */
const biomeFormatted = (text: string) => {
  const biome = spawnSync('node_modules/.bin/biome', ['format', '--stdin-file-path=table.md'], {
    cwd: PROJECT_ROOT,
    input: text,
    encoding: 'utf8',
  });
  expect(biome.status, biome.stderr).toBe(0);
  return biome.stdout;
};

describe('the bench’s Markdown tables', () => {
  it('are written as Biome formats them, so docs/benchmarks.md passes the lint after every run', () => {
    const text = `${markdownTable(
      ['Scenario', 'req/s', 'calls (old → new)', 'Goal'],
      [
        ['POST /api/books', '16,000', '2.00 → 1.01', '10,000 ✓'],
        ['GET /api/books?author=…', '192,000', '1.00 → 16.00', ''],
      ],
      ['left', 'right', 'right', 'right'],
    )}\n`;
    expect(text.split('\n')[1]).toBe(`| ${'-'.repeat(23)} | ------: | ${'-'.repeat(16)}: | -------: |`);
    expect(biomeFormatted(text)).toBe(text);
  });

  it('pads left-aligned columns on the right and right-aligned ones on the left', () => {
    expect(markdownTable(['a', 'b'], [['x', 'y']], ['left', 'right'])).toBe(
      ['| a   |   b |', '| --- | --: |', '| x   |   y |'].join('\n'),
    );
  });
});
