import { describe, expect, it } from 'vitest';
import { PreconditionFailedError, ValidationError } from '../../shared/books/errors';
import {
  IDEMPOTENCY_KEY_LIFETIME_SECONDS,
  parseIdempotencyKey,
  requestFingerprint,
} from '../../shared/books/idempotency';
import {
  entityTag,
  failedPrecondition,
  ifMatchCondition,
  ifNoneMatchCondition,
  MAX_LISTED_TAGS,
  noneMatch,
  parseTagList,
  satisfies,
  versionOf,
} from '../../shared/books/preconditions';

const opaque = (tag: string) => tag.slice(1, -1);

describe('entity tags', () => {
  it('are strong, quoted and opaque, and differ per book and per version', () => {
    const tag = entityTag(42, 3);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(tag).not.toContain('42');
    expect(new Set([entityTag(42, 3), entityTag(42, 4), entityTag(43, 3), entityTag(4, 23)]).size).toBe(4);
  });

  it('name the version they were made from, for their own book only', () => {
    expect(versionOf(42, opaque(entityTag(42, 3)))).toBe(3);
    expect(versionOf(9_007_199_254_740_991, opaque(entityTag(9_007_199_254_740_991, 12)))).toBe(12);
    expect(versionOf(43, opaque(entityTag(42, 3)))).toBeUndefined();
  });

  it('name a first version (a book as created) but never version 0, which no stored book has', () => {
    expect(versionOf(42, opaque(entityTag(42, 1)))).toBe(1);
    expect(versionOf(42, opaque(entityTag(42, 0)))).toBeUndefined();
  });

  it('are only read whole: a character outside base64url before or after the tag spoils it', () => {
    const tag = opaque(entityTag(42, 3));
    expect(versionOf(42, `!${tag}`)).toBeUndefined();
    expect(versionOf(42, `${tag}!`)).toBeUndefined();
    expect(versionOf(42, `${tag}=`)).toBeUndefined();
  });

  it('a failed precondition says what happened and carries the current version', () => {
    const error = new PreconditionFailedError(7, 2);
    expect(error).toMatchObject({ name: 'PreconditionFailedError', id: 7, currentVersion: 2 });
    expect(error.message).toBe('Book 7 does not match If-Match (it has changed since that version was read)');
  });

  it.each([
    ['', 'empty'],
    ['abc', 'not a tag of ours'],
    ['a+b/', 'not base64url'],
    [Buffer.from('42.0').toString('base64url'), 'version 0'],
    [Buffer.from('42.-1').toString('base64url'), 'negative'],
    [Buffer.from('42.1.5').toString('base64url'), 'three parts'],
    [Buffer.from(' 42.1').toString('base64url'), 'leading space'],
    [Buffer.from('42.1x').toString('base64url'), 'trailing text'],
    [Buffer.from('42.99999999999999999').toString('base64url'), 'too many digits'],
    [Buffer.from('42.9999999999999999').toString('base64url'), 'beyond 2^53'],
  ])('read %j (%s) as no version at all', (text) => {
    expect(versionOf(42, text)).toBeUndefined();
  });
});

describe('If-Match and If-None-Match values', () => {
  it('reads *, one tag, and lists with weak tags and spaces', () => {
    expect(parseTagList(undefined)).toBeUndefined();
    expect(parseTagList('*')).toBe('*');
    expect(parseTagList(' "a" ')).toStrictEqual([{ weak: false, opaque: 'a' }]);
    expect(parseTagList('W/"a",  "b",\t"c"')).toStrictEqual([
      { weak: true, opaque: 'a' },
      { weak: false, opaque: 'b' },
      { weak: false, opaque: 'c' },
    ]);
  });

  it('accepts empty list elements and ignores them (RFC 9110 §5.6.1)', () => {
    const a = { weak: false, opaque: 'a' };
    const b = { weak: false, opaque: 'b' };
    expect(parseTagList('"a",')).toStrictEqual([a]);
    expect(parseTagList(', "a"')).toStrictEqual([a]);
    expect(parseTagList('"a",,"b"')).toStrictEqual([a, b]);
    expect(parseTagList(' , "a" ,\t, "b" , ')).toStrictEqual([a, b]);
    expect(parseTagList(',')).toStrictEqual([]);
  });

  it.each(['', 'a', '"a', '"a" "b"', '*,"a"', '*,', 'w/"a"', '"a\\"b"', '"é"'])(
    'reads the malformed %j as a list that names no tag',
    (value) => {
      expect(parseTagList(value)).toStrictEqual([]);
    },
  );

  it(`takes at most ${MAX_LISTED_TAGS} tags; a longer list names no tag`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `"t${i}"`).join(',');
    expect(parseTagList(list(MAX_LISTED_TAGS))).toHaveLength(MAX_LISTED_TAGS);
    expect(parseTagList(list(MAX_LISTED_TAGS + 1))).toStrictEqual([]);
  });
});

describe('If-Match as a write condition (strong comparison)', () => {
  const tags = (...values: string[]) => parseTagList(values.join(', '));

  it('is absent without the header and * with it', () => {
    expect(ifMatchCondition(7, undefined)).toBeUndefined();
    expect(ifMatchCondition(7, '*')).toBe('*');
  });

  it('keeps the versions of this book’s strong tags, once each, and drops weak, foreign and unknown tags', () => {
    const condition = ifMatchCondition(
      7,
      tags(entityTag(7, 2), `W/${entityTag(7, 5)}`, entityTag(8, 6), '"junk"', entityTag(7, 3), entityTag(7, 2)),
    );
    expect(condition).toStrictEqual([2, 3]);
    expect(ifMatchCondition(7, tags(`W/${entityTag(7, 2)}`))).toStrictEqual([]);
    expect(ifMatchCondition(7, parseTagList('no quotes'))).toStrictEqual([]);
  });

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
  const tags = (...values: string[]) => parseTagList(values.join(', '));

  it('names this book’s versions, weak tags included, and * as it is', () => {
    expect(ifNoneMatchCondition(7, undefined)).toBeUndefined();
    expect(ifNoneMatchCondition(7, '*')).toBe('*');
    expect(
      ifNoneMatchCondition(7, tags(`W/${entityTag(7, 2)}`, entityTag(7, 3), entityTag(8, 4), '"x"')),
    ).toStrictEqual([2, 3]);
  });

  it('fails on an existing book under *, and when a listed version is the stored one', () => {
    expect(failedPrecondition(2, { noneMatch: '*' })).toBe('If-None-Match');
    expect(failedPrecondition(2, { noneMatch: [1, 2] })).toBe('If-None-Match');
    expect(failedPrecondition(3, { noneMatch: [1, 2] })).toBeUndefined();
    expect(failedPrecondition(3, { noneMatch: [] })).toBeUndefined();
  });

  it('is evaluated after If-Match (RFC 9110 §13.2.2): a failing If-Match is what the 412 names', () => {
    expect(failedPrecondition(2, { match: [1], noneMatch: '*' })).toBe('If-Match');
    expect(failedPrecondition(2, { match: [2], noneMatch: '*' })).toBe('If-None-Match');
    expect(failedPrecondition(2, { match: '*', noneMatch: [3] })).toBeUndefined();
  });

  it('says which header failed in the 412', () => {
    expect(new PreconditionFailedError(7, 2, 'If-None-Match').message).toBe(
      'Book 7 matches If-None-Match (it exists at a version the request excludes)',
    );
  });
});

describe('If-None-Match on a read (weak comparison)', () => {
  it('answers "modified" without the header, or when no tag is current, or for a malformed value', () => {
    expect(noneMatch(7, 2, undefined)).toBe(true);
    expect(noneMatch(7, 2, parseTagList(`${entityTag(7, 2)} junk`))).toBe(true);
    expect(noneMatch(7, 2, parseTagList(`${entityTag(7, 1)}, ${entityTag(8, 2)}`))).toBe(true);
  });

  it('answers "not modified" for the current tag, weak or strong, and for *', () => {
    expect(noneMatch(7, 2, parseTagList(entityTag(7, 2)))).toBe(false);
    expect(noneMatch(7, 2, parseTagList(`"x", W/${entityTag(7, 2)}`))).toBe(false);
    expect(noneMatch(7, 2, '*')).toBe(false);
  });
});

describe('Idempotency-Key values', () => {
  it('reads the quoted form and the bare form as the same key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('"8e03978e-40d5"')).toBe('8e03978e-40d5');
    expect(parseIdempotencyKey(' 8e03978e-40d5 ')).toBe('8e03978e-40d5');
    expect(parseIdempotencyKey('"a b"')).toBe('a b');
  });

  it.each(['', '""', '"', 'a b', '"a"b"', '"a\\\\b"', `"${'k'.repeat(256)}"`, 'k'.repeat(256), '"ключ"'])(
    'refuses %j with a 400 naming the header',
    (value) => {
      expect(() => parseIdempotencyKey(value)).toThrow(
        new ValidationError({
          'Idempotency-Key': 'Idempotency-Key must be a quoted string of 1 to 255 printable ASCII characters',
        }),
      );
    },
  );

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
