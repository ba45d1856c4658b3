import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** The AsyncAPI parser's verdict on a document: its error diagnostics (severity 0), and the parsed document. */
export const parseAsyncApi = async (document: object) => {
  const { document: parsed, diagnostics } = await new Parser().parse(JSON.stringify(document));
  return { parsed, errors: diagnostics.filter((diagnostic) => diagnostic.severity === 0) };
};

/**
 * A check of received events against the document: each event must match the payload schema of
 * the message its `type` names (as the parser resolved it), with `format` checked. Returns the
 * problems, none for a valid event.
 */
export const asyncApiEventCheck = async (document: object) => {
  const { parsed, errors } = await parseAsyncApi(document);
  if (!parsed) throw new Error(`the AsyncAPI document does not parse: ${JSON.stringify(errors)}`);
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const byType = new Map(
    parsed
      .messages()
      .all()
      .map((message) => [message.name() as string, ajv.compile(message.payload()?.json() ?? false)]),
  );
  return (event: { type?: unknown }): string[] => {
    const validate = byType.get(String(event.type));
    if (!validate) return [`no message for type ${String(event.type)}`];
    return validate(event) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  };
};
