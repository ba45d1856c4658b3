import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { stackOptionsFromContext } from '../../infra/context';

/**
 * The stack's context options are documented once, in docs/operations.md: its table names every
 * option infra/context.ts reads, and each documented default is the one the stack takes when the
 * option is not given.
 */
const START = '<!-- context-options:start';
const END = '<!-- context-options:end -->';

/** The table's rows: each option name in the first column (a row may name two), with its default. */
const documentedOptions = (): Map<string, string> => {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/operations.md'), 'utf8');
  const block = page.slice(page.indexOf(START), page.indexOf(END));
  expect(block, 'docs/operations.md has no context-options block').toContain('|');
  const options = new Map<string, string>();
  for (const line of block.split('\n').filter((l) => /^\s*\| `/.test(l))) {
    const [names = '', defaults = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    const named = [...names.matchAll(/`(\w+)`/g)].map((match) => match[1] as string);
    // A row of two options gives two defaults, `50, 100`; one option's default may hold commas itself.
    const values = (named.length > 1 ? defaults.split(', ') : [defaults]).map((value) => value.replace(/`/g, ''));
    named.forEach((name, i) => {
      options.set(name, values[i] ?? (values[0] as string));
    });
  }
  return options;
};

/** The names infra/context.ts asks for, in the order it asks. */
const namesTheStackReads = (): string[] => {
  const names: string[] = [];
  stackOptionsFromContext((name) => {
    names.push(name);
    return undefined;
  });
  return [...new Set(names)];
};

describe('the CDK context options in docs/operations.md', () => {
  it('are exactly the options the stack reads', () => {
    expect([...documentedOptions().keys()].sort()).toEqual(namesTheStackReads().sort());
  });

  it('show each default the stack takes when the option is not given', () => {
    const unset = stackOptionsFromContext(() => undefined);
    for (const [name, value] of documentedOptions()) {
      // "none": not setting it is the default; giving the empty string must mean the same.
      const given = value === 'none' ? '' : value;
      expect(
        stackOptionsFromContext((asked) => (asked === name ? given : undefined)),
        name,
      ).toEqual(unset);
    }
  });

  it('would notice a wrong default', () => {
    const unset = stackOptionsFromContext(() => undefined);
    expect(stackOptionsFromContext((asked) => (asked === 'throttleRate' ? '51' : undefined))).not.toEqual(unset);
  });
});
