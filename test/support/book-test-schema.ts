import * as v from 'valibot';
import { BookInputSchema, bookSchemaOf } from '../../shared/books/book-schema';
import { allowedValues, optionalTextField } from '../../shared/books/field-rules';
import { jsonSchema } from '../../shared/openapi/json-schema';

/**
 * The service's fields plus the kinds it has none of yet: an optional text field, a required
 * enumerated one and an optional enumerated one. Generic tests run over it, so a field of any
 * kind added to the real schema is already covered.
 */
export const TEST_BOOK_SCHEMA = bookSchemaOf({
  ...BookInputSchema.entries,
  subtitle: optionalTextField('Subtitle', 200),
  language: allowedValues('Language', ['en', 'de', 'pt-BR']),
  format: v.exactOptional(allowedValues('Format', ['paperback', 'hardcover'])),
});

type Property = { type?: string; maxLength?: number; minimum?: number; enum?: string[]; anyOf?: Property[] };

/** A field's JSON Schema property in the POST body: its documented constraints. */
export const fieldConstraints = (schema: { input: v.GenericSchema }, field: string): Property =>
  (jsonSchema(schema.input, 'output') as { properties: Record<string, Property> }).properties[field] as Property;

/**
 * Two different valid values and some invalid ones of a field, derived from its own constraints
 * (type, allowed values, length, minimum), never from its name.
 */
export const fieldValues = (property: Property): { valid: [unknown, unknown]; invalid: unknown[] } => {
  if (property.enum) {
    const [first, second = first] = property.enum;
    return { valid: [first, second], invalid: [`${property.enum.join('')}x`, '', 1] };
  }
  if (property.type === 'integer' || property.type === 'number') {
    const min = property.minimum ?? 0;
    return { valid: [min, min + 1], invalid: [min - 1, 'text', 1.5] };
  }
  if (property.type === 'string') {
    const max = property.maxLength ?? 1;
    return { valid: ['a'.repeat(max), 'b'], invalid: ['a'.repeat(max + 1), ' ', 1] };
  }
  throw new Error(`No values derived for a property of type ${property.type}`);
};
