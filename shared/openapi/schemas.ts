import type { JsonSchema } from '@valibot/to-json-schema';
import { BOOK_SCHEMA, type BookSchema } from '../books/book-schema';
import { MAX_BOOK_ID } from '../books/limits';
import { describeTextFields, jsonSchema } from './json-schema';

/**
 * components.schemas: the request bodies from the valibot schemas the handlers validate with; the
 * stored book and the validation error, which the code builds by hand, described here.
 */
export const schemas = (bookSchema: BookSchema = BOOK_SCHEMA) => {
  const bookInput = describeTextFields(jsonSchema(bookSchema.input, 'output'));
  const { properties, required = [] } = bookInput as { properties: Record<string, JsonSchema>; required?: string[] };
  return {
    BookInput: bookInput,
    BookPatch: describeTextFields(jsonSchema(bookSchema.patch, 'output')),
    Book: {
      type: 'object',
      required: ['id', ...required, 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'integer', minimum: 1, maximum: MAX_BOOK_ID },
        ...properties,
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    ValidationError: {
      type: 'object',
      required: ['timestamp', 'status', 'errors'],
      properties: {
        timestamp: { type: 'string', format: 'date-time' },
        status: { const: 400 },
        errors: {
          type: 'object',
          description: 'Field name (or `body`, `id`, a query parameter) to its violation message',
          additionalProperties: { type: 'string' },
        },
      },
    },
  };
};
