import { describe, expect, it } from 'vitest';
import { PreconditionFailedError } from '../../shared/books/errors';
import { responseForError } from '../../shared/http/error-responses';
import { entityTag } from '../../shared/http/preconditions';

const bodyOf = (error: unknown) => {
  const response = responseForError(error);
  return { statusCode: response?.statusCode, headers: response?.headers, body: JSON.parse(String(response?.body)) };
};

describe('the 412 for a failed precondition', () => {
  it('names If-Match when the write named no current version, with the current tag', () => {
    const { statusCode, headers, body } = bodyOf(new PreconditionFailedError(7, 2, 'match'));
    expect(statusCode).toBe(412);
    expect(headers).toMatchObject({ ETag: entityTag(7, 2) });
    expect(body).toMatchObject({
      status: 412,
      message: 'Book 7 does not match If-Match (it has changed since that version was read)',
    });
  });

  it('names If-None-Match when the write excluded the current version', () => {
    const { statusCode, body } = bodyOf(new PreconditionFailedError(7, 3, 'noneMatch'));
    expect(statusCode).toBe(412);
    expect(body.message).toBe('Book 7 matches If-None-Match (it exists at a version the request excludes)');
  });

  it('names If-Match for an error raised without a condition (the domain default)', () => {
    expect(bodyOf(new PreconditionFailedError(9, 1)).body.message).toBe(
      'Book 9 does not match If-Match (it has changed since that version was read)',
    );
  });
});
