import { describe, expect, it, vi } from 'vitest';
import { AUTHOR_INDEX_TWO_SHARDS, LayoutState } from '../../shared/store/books/layout-state';

/** What a container knows of the author keys' mark, and when it reads the id-blocks item again for it. */
describe('LayoutState: the author keys’ mark', () => {
  const MINUTE = 60_000;

  it('a container that has read nothing looks for the mark once', () => {
    expect(new LayoutState().shouldLookForAuthorPairs(Date.now(), MINUTE)).toBe(true);
  });

  it('seen once, the mark is never looked for again: it never reverts', () => {
    const layout = new LayoutState();
    layout.learn({ highMark: 5, layout: 'ranges', authorIndex: AUTHOR_INDEX_TWO_SHARDS });
    expect(layout.authorPairs).toBe(true);
    expect(layout.shouldLookForAuthorPairs(Date.now() + 10 * MINUTE, MINUTE)).toBe(false);
    layout.learn({ highMark: 6, layout: 'ranges' }); // a write's answer without it changes nothing
    expect(layout.authorPairs).toBe(true);
  });

  it('not seen, it is looked for again once the last read is older than the given age', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const layout = new LayoutState();
      layout.learn({ highMark: 5, layout: 'ranges', rangeMarks: 'complete' }); // the item, without the mark
      expect(layout.authorPairs).toBe(false);
      expect(layout.shouldLookForAuthorPairs(Date.now(), MINUTE)).toBe(false);
      expect(layout.shouldLookForAuthorPairs(Date.now() + MINUTE, MINUTE)).toBe(false);
      expect(layout.shouldLookForAuthorPairs(Date.now() + MINUTE + 1, MINUTE)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an answer that is not the id-blocks item (no layout attributes) counts as no read', () => {
    const layout = new LayoutState();
    layout.learn({ highMark: 5 });
    expect(layout.shouldLookForAuthorPairs(Date.now(), MINUTE)).toBe(true);
  });
});
