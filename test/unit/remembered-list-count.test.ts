import { describe, expect, it } from 'vitest';
import { LIST_COUNT_REMEMBERED_SECONDS, rememberedCountReaches } from '../../shared/store/books/remembered-list-count';

/** The verdict on the id-blocks item that the unfiltered list reached the cap, and how long it stands. */
describe('a remembered count of the unfiltered list', () => {
  const now = 1_800_000_000;
  const counted = (listCount: number, secondsAgo: number) => ({ listCount, listCountedAt: now - secondsAgo });

  it('answers for a limit it reached, the limit itself included, for LIST_COUNT_REMEMBERED_SECONDS', () => {
    expect(rememberedCountReaches(counted(500, 0), 500, now)).toBe(true);
    expect(rememberedCountReaches(counted(501, 0), 500, now)).toBe(true);
    expect(rememberedCountReaches(counted(500, LIST_COUNT_REMEMBERED_SECONDS), 500, now)).toBe(true);
  });

  it('answers nothing for a limit it did not reach, once it is older, or when there is none', () => {
    expect(rememberedCountReaches(counted(499, 0), 500, now)).toBe(false);
    expect(rememberedCountReaches(counted(500, LIST_COUNT_REMEMBERED_SECONDS + 1), 500, now)).toBe(false);
    expect(rememberedCountReaches({ listCount: 500 }, 500, now)).toBe(false);
    expect(rememberedCountReaches({}, 500, now)).toBe(false);
    expect(rememberedCountReaches(undefined, 500, now)).toBe(false);
  });
});
