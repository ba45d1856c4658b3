import { describe, expect, it } from 'vitest';
import {
  AUTHENTICATION_RETRY_AFTER_SECONDS,
  CONTENDED_RETRY_AFTER_SECONDS,
  CONTENDED_WRITE_MESSAGE,
  STORE_NOT_READY_MESSAGE,
  STORE_NOT_READY_RETRY_AFTER_SECONDS,
} from '../../shared/http/responses';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { serviceUnavailable } from '../../shared/openapi/unavailable';

type Documented = ReturnType<typeof serviceUnavailable>;
const schemaOf = (answer: Documented) => answer.content['application/json'].schema as Record<string, unknown>;
const messageOf = (body: unknown) =>
  ((body as { properties: { message: { const?: string; enum?: string[] } } }).properties.message.const ??
    (body as { properties: { message: { enum?: string[] } } }).properties.message.enum?.[0]) as string;

describe('the documented 503 of an operation', () => {
  it('describes one cause with its body as the schema itself, not a choice of one', () => {
    const answer = serviceUnavailable(['upgrading']);
    expect(schemaOf(answer).anyOf).toBeUndefined();
    expect(JSON.stringify(schemaOf(answer))).toContain(STORE_NOT_READY_MESSAGE);
  });

  it('offers each cause’s body when there are several', () => {
    const schema = schemaOf(serviceUnavailable(['contended', 'upgrading']));
    const bodies = schema.anyOf as unknown[];
    expect(bodies).toHaveLength(2);
    expect(JSON.stringify(bodies[0])).toContain(CONTENDED_WRITE_MESSAGE);
    expect(JSON.stringify(bodies[1])).toContain(STORE_NOT_READY_MESSAGE);
    expect(messageOf(bodies[1])).toBe(STORE_NOT_READY_MESSAGE);
  });

  it('says when each cause happens, what it left undone, and to repeat after Retry-After', () => {
    const { description } = serviceUnavailable(['contended', 'upgrading']);
    expect(description).toMatch(/^Unavailable for now, when other requests kept changing the book/);
    expect(description).toContain('until the retries ran out: nothing was written; or when the books table is older');
    expect(description).toContain('an upgrade step is due): nothing was read or written. Repeat after `Retry-After`');
  });

  it('documents Retry-After as whole seconds, with each cause’s own wait', () => {
    const header = serviceUnavailable(['contended', 'upgrading', 'authentication']).headers['Retry-After'];
    expect(header.schema).toEqual({ type: 'integer', minimum: 0 });
    expect(header.description).toBe(
      'Seconds to wait before repeating the request: ' +
        `${CONTENDED_RETRY_AFTER_SECONDS} when other requests kept changing the book until the retries ran out; ` +
        `${STORE_NOT_READY_RETRY_AFTER_SECONDS} when the books table is older than this version of the service serves (an upgrade step is due); ` +
        `${AUTHENTICATION_RETRY_AFTER_SECONDS} when the credentials could not be checked at this moment`,
    );
  });

  it('appears on the book routes and not on a public route that cannot be unavailable', () => {
    const { paths } = buildOpenApiDocument({ publicReads: true });
    expect(paths['/api/books']?.post?.responses['503']).toBeDefined();
    expect(paths['/api/openapi.json']?.get?.responses['503']).toBeUndefined();
  });
});
