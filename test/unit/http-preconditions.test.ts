import { describe, expect, it } from 'vitest';
import {
  entityTag,
  ifMatchCondition,
  ifNoneMatchCondition,
  MAX_LISTED_TAGS,
  noneMatch,
  parseTagList,
  versionOf,
} from '../../shared/http/preconditions';

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

  it.each([
    ['1.0000000000000001', 1, 1],
    ['1.01', 1, 1],
    ['01.1', 1, 1],
    ['42.0003', 42, 3],
  ])('compare character by character: %j is not the tag of the version it decodes to', (text, id, version) => {
    const forged = Buffer.from(text).toString('base64url');
    expect(forged).not.toBe(opaque(entityTag(id, version)));
    expect(versionOf(id, forged)).toBeUndefined();
    expect(ifMatchCondition(id, parseTagList(`"${forged}"`))).toStrictEqual([]);
    expect(ifNoneMatchCondition(id, parseTagList(`W/"${forged}"`))).toStrictEqual([]);
    expect(noneMatch(id, version, parseTagList(`"${forged}"`))).toBe(true); // no tag of it matched
    expect(noneMatch(id, version, parseTagList(entityTag(id, version)))).toBe(false);
    expect(ifMatchCondition(id, parseTagList(entityTag(id, version)))).toStrictEqual([version]);
  });

  it('see the spare bits of a last base64url character: another text is another tag', () => {
    const tag = opaque(entityTag(1, 1)); // "MS4x"
    expect(tag).toBe('MS4x');
    const shifted = `${Buffer.from('1.1').toString('base64url')}A`; // decodes alike, reads otherwise
    expect(versionOf(1, shifted)).toBeUndefined();
    expect(versionOf(1, 'MS4x')).toBe(1);
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
