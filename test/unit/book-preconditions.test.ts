import { describe, expect, it } from 'vitest';
import { PreconditionFailedError } from '../../shared/books/errors';
import { IDEMPOTENCY_KEY_LIFETIME_SECONDS, requestFingerprint } from '../../shared/books/idempotency';
import { failedPrecondition, satisfies } from '../../shared/books/preconditions';

describe('a failed precondition', () => {
  it('a failed precondition says what happened and carries the current version', () => {
    const error = new PreconditionFailedError(7, 2);
    expect(error).toMatchObject({ name: 'PreconditionFailedError', id: 7, currentVersion: 2, condition: 'match' });
    expect(error.message).toBe(
      'Book 7 is at none of the versions the write names (it has changed since that version was read)',
    );
  });
});

describe('If-Match as a write condition (strong comparison)', () => {
  it('is satisfied by a listed version, by anything under * or no condition, and by nothing under []', () => {
    expect(satisfies(3, { match: [2, 3] })).toBe(true);
    expect(satisfies(4, { match: [2, 3] })).toBe(false);
    expect(satisfies(4, { match: [] })).toBe(false);
    expect(satisfies(4, { match: '*' })).toBe(true);
    expect(satisfies(4, {})).toBe(true);
    expect(satisfies(4, undefined)).toBe(true);
  });
});

describe('If-None-Match as a write condition (weak comparison)', () => {
  it('fails on an existing book under *, and when a listed version is the stored one', () => {
    expect(failedPrecondition(2, { noneMatch: '*' })).toBe('noneMatch');
    expect(failedPrecondition(2, { noneMatch: [1, 2] })).toBe('noneMatch');
    expect(failedPrecondition(3, { noneMatch: [1, 2] })).toBeUndefined();
    expect(failedPrecondition(3, { noneMatch: [] })).toBeUndefined();
  });

  it('is evaluated after If-Match (RFC 9110 §13.2.2): a failing If-Match is what the 412 names', () => {
    expect(failedPrecondition(2, { match: [1], noneMatch: '*' })).toBe('match');
    expect(failedPrecondition(2, { match: [2], noneMatch: '*' })).toBe('noneMatch');
    expect(failedPrecondition(2, { match: '*', noneMatch: [3] })).toBeUndefined();
  });

  it("names the condition that failed, in the domain's terms (shared/http names the header)", () => {
    const error = new PreconditionFailedError(7, 2, 'noneMatch');
    expect(error.condition).toBe('noneMatch');
    expect(error.message).toBe('Book 7 is at a version the write excludes');
  });
});

describe('idempotency keys', () => {
  it('lives 24 hours', () => {
    expect(IDEMPOTENCY_KEY_LIFETIME_SECONDS).toBe(86_400);
  });

  it('fingerprints the four client fields, each of which counts, and nothing else', () => {
    const book = { title: 'T', author: 'A', isbn: 'I', publicationYear: 2000 };
    const base = requestFingerprint(book);
    expect(base).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(requestFingerprint({ publicationYear: 2000, isbn: 'I', author: 'A', title: 'T' })).toBe(base);
    expect(requestFingerprint({ ...book, id: 5 } as typeof book)).toBe(base);
    for (const changed of [{ title: 'U' }, { author: 'B' }, { isbn: 'J' }, { publicationYear: 2001 }]) {
      expect(requestFingerprint({ ...book, ...changed })).not.toBe(base);
    }
    expect(requestFingerprint({ ...book, title: 'A', author: 'T' })).not.toBe(base);
  });
});
