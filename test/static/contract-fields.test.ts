import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { BOOK_SCHEMA, type BookSchema } from '../../shared/books/book-schema';
import { jsonSchemaOf } from '../../shared/books/documented-checks';
import { fieldConstraints, TEST_BOOK_SCHEMA } from '../support/book-test-schema';

/**
 * docs/contract.md's field table against the Book schema: one row per client field, in the schema's
 * order, with its type, whether POST and PUT require it, and each constraint's value and message.
 * A field added to the schema without its row (or a row left after the field) fails here.
 */
const contract = readFileSync(join(PROJECT_ROOT, 'docs/contract.md'), 'utf8');
const table = contract.slice(contract.indexOf('## The book'), contract.indexOf('## Routes'));
const clientRows = new Map(
  table
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => cells[3] === 'client')
    .map((cells) => [
      cells[1]?.replaceAll('`', '') ?? '',
      { type: cells[2], required: cells[4], rules: cells[5] ?? '' },
    ]),
);

type Item = { type: string; message?: unknown; pipe?: Item[]; wrapped?: Item };
const pipeOf = (rule: Item): Item[] => (rule.wrapped ? pipeOf(rule.wrapped) : (rule.pipe ?? []));

/** What the row must say of a field: its type, whether it is required, and the words of each constraint. */
const expectedRow = (schema: BookSchema, field: string) => {
  const constraints = fieldConstraints(schema, field);
  const rule = (schema.input as unknown as { entries: Record<string, Item> }).entries[field] as Item;
  const optional = schema.optionalFields.has(field);
  const messages = pipeOf(rule)
    .filter((item) => item.type === 'min_value' || jsonSchemaOf(item)?.maxLength || jsonSchemaOf(item)?.enum)
    .map((item) => String(item.message));
  const requiredMessage = v.safeParse(rule as unknown as v.GenericSchema, undefined).issues?.[0]?.message;
  return {
    type: constraints.type ?? 'string',
    required: optional ? 'no' : 'yes',
    words: [
      ...messages,
      ...(optional || !requiredMessage ? [] : [requiredMessage]),
      ...(constraints.maxLength === undefined ? [] : [`at most ${constraints.maxLength}`]),
      ...(constraints.minimum === undefined ? [] : [`at least ${constraints.minimum}`]),
      ...(constraints.enum ?? []).map((value) => `\`${value}\``),
    ],
  };
};

/** Where the table and a schema differ, in words; empty when they agree. */
const differences = (schema: BookSchema, rows = clientRows): string[] => {
  const found: string[] = [];
  if ([...rows.keys()].join() !== schema.inputFields.join()) {
    found.push(`rows ${[...rows.keys()].join()} but fields ${schema.inputFields.join()}`);
  }
  for (const field of schema.inputFields) {
    const row = rows.get(field);
    if (!row) continue;
    const expected = expectedRow(schema, field);
    if (row.type !== expected.type) found.push(`${field}: type ${row.type}, schema ${expected.type}`);
    if (row.required !== expected.required)
      found.push(`${field}: required ${row.required}, schema ${expected.required}`);
    for (const words of expected.words) if (!row.rules.includes(words)) found.push(`${field}: rules lack ${words}`);
  }
  return found;
};

describe('docs/contract.md’s field table is the Book schema in words', () => {
  it('has a row for every client field, with its type, whether it is required, its limits and messages', () => {
    expect(clientRows.size).toBeGreaterThan(0);
    expect(differences(BOOK_SCHEMA)).toEqual([]);
  });

  it('notices a field without its row, and a constraint the row does not state', () => {
    const found = differences(TEST_BOOK_SCHEMA);
    expect(found[0]).toMatch(/^rows .* but fields .*language/);
    const title = clientRows.get('title') as { type: string; required: string; rules: string };
    const shorter = new Map([...clientRows, ['title', { ...title, rules: title.rules.replaceAll('500', '400') }]]);
    expect(differences(BOOK_SCHEMA, shorter)).toEqual(
      expect.arrayContaining([
        'title: rules lack Title must be at most 500 characters',
        'title: rules lack at most 500',
      ]),
    );
  });
});
