import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { bookSchemaOf } from '../../shared/books/book-schema';
import { jsonSchemaOf } from '../../shared/books/documented-checks';
import { allowedValues, optionalTextField, present, requiredText } from '../../shared/books/field-rules';

/**
 * The field rules and what bookSchemaOf derives from them, each rule built inside its test: a field
 * added to the schema is made of these, so they must hold for any label, length and blank set, not
 * only for the service's four fields (book-schemas.test.ts checks those).
 */

/** The message a rule refuses a value with, or undefined when it accepts it. */
const refusal = (rule: v.GenericSchema, value: unknown) => v.safeParse(rule, value).issues?.[0].message;

/** A rule's JSON Schema, as its checks document it (what the OpenAPI document says of the field). */
const documented = (rule: v.GenericSchema): Record<string, unknown> => {
  const { pipe = [] } = rule as unknown as { pipe?: object[] };
  return Object.assign({}, ...pipe.map((item) => jsonSchemaOf(item) ?? {}));
};

describe('a required text field', () => {
  it('refuses missing, blank and white-space-only text as required, in the field’s own words', () => {
    const label = requiredText('Label', 5);
    for (const value of [undefined, null, '', ' ', '\t\n\u3000\ufeff\u00a0']) {
      expect(refusal(label, value), JSON.stringify(value)).toBe('Label is required');
    }
  });

  it('counts the characters it is given as blank too, and no others', () => {
    const code = requiredText('Code', 5, '-');
    expect(refusal(code, '- -')).toBe('Code is required');
    expect(refusal(requiredText('Code', 5), '- -')).toBeUndefined();
    expect(refusal(requiredText('Code', 5), 'sea')).toBeUndefined();
  });

  it('names the field in what it says of a wrong type, broken text, a control character or a long text', () => {
    const label = requiredText('Label', 5);
    expect(refusal(label, 42)).toBe('Label must be a string');
    expect(refusal(label, 'a\ud800')).toBe('Label must be valid Unicode text');
    expect(refusal(label, 'a\u0000b')).toBe('Label must not contain control characters');
    expect(refusal(label, 'a\u009f')).toBe('Label must not contain control characters');
    expect(refusal(label, 'abcdef')).toBe('Label must be at most 5 characters');
    expect(refusal(label, '\u{1f600}'.repeat(5))).toBeUndefined();
  });

  it('documents its length and a pattern that accepts exactly what its checks accept', () => {
    const code = requiredText('Code', 8, '-');
    const { maxLength, pattern } = documented(code);
    expect(maxLength).toBe(8);
    const matches = new RegExp(String(pattern), 'u');
    for (const text of ['a', ' a-', 'a\tb', '-', ' \u3000', 'a\u0001', 'a\u007f', 'a\ufffd', '']) {
      expect(matches.test(text), JSON.stringify(text)).toBe(refusal(code, text) === undefined);
    }
  });
});

describe('an optional text field', () => {
  it('may be left out, but sent blank says it must not be blank', () => {
    const subtitle = optionalTextField('Subtitle', 10);
    const body = v.object({ subtitle });
    expect(v.safeParse(body, {}).success).toBe(true);
    expect(refusal(body, { subtitle: ' ' })).toBe('Subtitle must not be blank');
    expect(refusal(body, { subtitle: 'sea' })).toBeUndefined();
  });
});

describe('a field limited to a list of values', () => {
  it('names the field and, for a value outside the list, the values it takes', () => {
    const language = allowedValues('Language', ['en', 'pt-BR']);
    expect(refusal(language, null)).toBe('Language is required');
    expect(refusal(language, 1)).toBe('Language must be a string');
    expect(refusal(language, 'fr')).toBe('Language must be one of en, pt-BR');
    expect(refusal(language, 'pt-BR')).toBeUndefined();
    expect(documented(language)).toStrictEqual({ enum: ['en', 'pt-BR'] });
  });
});

describe('what bookSchemaOf derives from the field rules', () => {
  const fieldsOfEveryKind = () => ({
    title: requiredText('Title', 50),
    year: v.pipe(v.unknown(), present('Year is required'), v.number('Year must be a number'), v.minValue(1000)),
    subtitle: optionalTextField('Subtitle', 20),
    language: allowedValues('Language', ['en', 'pt-BR']),
    format: v.exactOptional(allowedValues('Format', ['paperback', 'hardcover'])),
  });

  it('the number fields (stored as DynamoDB N): id and the fields whose pipe checks a number', () => {
    expect([...bookSchemaOf(fieldsOfEveryKind()).numberFields]).toEqual(['id', 'year']);
  });

  it('the text fields’ longest values: their maxLength, or their longest allowed value', () => {
    expect(bookSchemaOf(fieldsOfEveryKind()).textMaxLengths).toEqual({
      title: 50,
      subtitle: 20,
      language: 5,
      format: 9,
    });
  });

  it('the allowed values of the enumerated fields, optional ones included', () => {
    expect(bookSchemaOf(fieldsOfEveryKind()).allowedValues).toEqual({
      language: ['en', 'pt-BR'],
      format: ['paperback', 'hardcover'],
    });
  });

  it('a missing required field is reported with the field’s own message, not the object’s', () => {
    const { input } = bookSchemaOf(fieldsOfEveryKind());
    const issues = v.safeParse(input, { year: 2000, language: 'en' }).issues ?? [];
    expect(issues.map((issue) => issue.message)).toEqual(['Title is required']);
  });
});
