/**
 * JSON Schema keywords that state what a valibot check says, for the checks the converter
 * (@valibot/to-json-schema) cannot read: `check()` and anything after a `transform`. The OpenAPI
 * document merges them in; a check with no entry here makes the document build fail, so the
 * document and the validation cannot drift apart in silence.
 */
export type JsonSchemaFragment = Record<string, unknown>;

const counterparts = new WeakMap<object, JsonSchemaFragment>();

/** Registers `fragment` as what `item` (a valibot action or schema) enforces, and returns `item`. */
export const withJsonSchema = <T extends object>(item: T, fragment: JsonSchemaFragment): T => {
  counterparts.set(item, fragment);
  return item;
};

export const jsonSchemaOf = (item: object): JsonSchemaFragment | undefined => counterparts.get(item);

/** Length in Unicode code points, as JSON Schema's `minLength`/`maxLength` count it (not UTF-16 units). */
export const codePointLength = (text: string): number => {
  let length = 0;
  for (const _ of text) length++;
  return length;
};

/**
 * A regular expression source for decimal integers from 1 to `max` without leading zeros, digit by
 * digit, so that JSON Schema (which has no numeric bounds on strings) states the bound exactly.
 */
export const positiveIntegerPattern = (max: number): string => {
  const digits = String(max);
  const shorter = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  const sameLength: string[] = [];
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[i]);
    const low = i === 0 ? 1 : 0;
    const rest = digits.length - i - 1;
    if (digit > low) {
      const below = digit - 1 === low ? `${low}` : `[${low}-${digit - 1}]`;
      sameLength.push(`${digits.slice(0, i)}${below}${rest > 0 ? `[0-9]{${rest}}` : ''}`);
    }
  }
  sameLength.push(digits);
  return `(?:${[...shorter, ...sameLength].join('|')})`;
};
