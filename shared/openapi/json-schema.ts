import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { jsonSchemaOf } from '../books/documented-checks';

type PipeItem = {
  kind: string;
  type: string;
  pipe?: PipeItem[];
  entries?: Record<string, PipeItem>;
  wrapped?: PipeItem;
};

/**
 * The checks the converter would leave out without a word: a `check()` or anything after a
 * transformation, when no JSON Schema counterpart is registered for it (see withJsonSchema). Each is
 * named by its path and type.
 */
export const undocumentedChecks = (schema: unknown, path = '$'): string[] => {
  const item = schema as PipeItem;
  const found: string[] = [];
  if (item.entries) {
    for (const [key, entry] of Object.entries(item.entries)) found.push(...undocumentedChecks(entry, `${path}.${key}`));
  }
  if (item.wrapped) found.push(...undocumentedChecks(item.wrapped, path));
  let transformed = false;
  for (const [index, step] of (item.pipe ?? []).entries()) {
    if (index === 0) continue;
    if (step.kind === 'transformation') transformed = true;
    const unreadable = step.type === 'check' || (transformed && (step.kind === 'validation' || step.kind === 'schema'));
    if (unreadable && !jsonSchemaOf(step)) found.push(`${path}: ${step.type}`);
    if (step.kind === 'schema') found.push(...undocumentedChecks(step, path));
  }
  return found;
};

/**
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect). Parameters are converted as the strings they arrive
 * as (`input`: stop before a transformation); body fields start with `unknown` plus checks (so that
 * `null` gets the spec's "required" message), which `input` mode would stop at, so they are
 * converted whole. Checks the converter cannot read take their registered counterparts; one without
 * a counterpart fails the build rather than leave the document looser than the validation.
 */
export const jsonSchema = (schema: v.GenericSchema, typeMode: 'input' | 'output'): JsonSchema => {
  const undocumented = undocumentedChecks(schema);
  if (undocumented.length > 0) {
    throw new Error(`Checks without a JSON Schema counterpart: ${undocumented.join(', ')}`);
  }
  const { $schema: _, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'throw',
    overrideAction: ({ valibotAction, jsonSchema: converted }) => {
      const counterpart = jsonSchemaOf(valibotAction);
      return counterpart && { ...converted, ...counterpart };
    },
  });
  return rest;
};

/** The text pattern reads poorly; say it in words too. */
export const describeTextFields = (schema: JsonSchema): JsonSchema => {
  const properties = (schema as { properties?: Record<string, JsonSchema & { type?: string }> }).properties ?? {};
  for (const property of Object.values(properties)) {
    if (property.type === 'string') {
      property.description = 'Must not be blank; no control character other than tab, line feed and carriage return';
    }
  }
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  return schema;
};
