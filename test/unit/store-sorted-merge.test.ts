import { describe, expect, it } from 'vitest';
import { mergeAscending } from '../../shared/store/books/sorted-merge';

/** A source yielding `runs` (as a store yields pages) that records how many it gave and whether it was closed. */
const source = (runs: number[][]) => {
  const state = { pulled: 0, closed: false };
  const iterable: AsyncIterable<number[]> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const value = runs[state.pulled];
        if (value === undefined) return { done: true, value: undefined };
        state.pulled++;
        return { done: false, value };
      },
      return: async () => {
        state.closed = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { iterable, state };
};

/** A source of one-item runs. */
const singles = (values: number[]) => source(values.map((value) => [value]));

const runsOf = <T>(runs: T[][]): AsyncIterable<T[]> => ({
  async *[Symbol.asyncIterator]() {
    yield* runs;
  },
});

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

const byValue = (n: number) => n;

describe('mergeAscending', () => {
  it('merges ascending sources into one ascending sequence, every item once', async () => {
    const sources = [[[1, 4], [9]], [[2, 3, 10, 11]], [], [[5]]].map((runs) => source(runs).iterable);
    expect(await collect(mergeAscending(sources, byValue))).toStrictEqual([1, 2, 3, 4, 5, 9, 10, 11]);
  });

  it('skips empty runs (a filtered page can hold no item) without ending the source', async () => {
    const sources = [source([[], [1], [], [], [4]]).iterable, singles([2, 3]).iterable];
    expect(await collect(mergeAscending(sources, byValue))).toStrictEqual([1, 2, 3, 4]);
  });

  it('on equal keys takes the earlier source first, so a merge is stable', async () => {
    const labelled = ['a', 'b'].map((tag) => runsOf([[{ key: 1, tag }], [{ key: 2, tag }]]));
    expect(await collect(mergeAscending(labelled, (item) => item.key))).toStrictEqual([
      { key: 1, tag: 'a' },
      { key: 1, tag: 'b' },
      { key: 2, tag: 'a' },
      { key: 2, tag: 'b' },
    ]);
  });

  it('orders by the key it is given, not by the items themselves', async () => {
    const books = [runsOf([[{ id: 3 }, { id: 30 }]]), runsOf([[{ id: 20 }]])];
    const merged = await collect(mergeAscending(books, (book) => book.id));
    expect(merged.map((book) => book.id)).toStrictEqual([3, 20, 30]);
  });

  it('takes the smallest head wherever its source stands, first, middle or last', async () => {
    for (const order of [
      [[1], [2], [3]],
      [[2], [1], [3]],
      [[3], [2], [1]],
    ]) {
      const sources = order.map((values) => singles(values).iterable);
      expect(await collect(mergeAscending(sources, byValue))).toStrictEqual([1, 2, 3]);
    }
  });

  it('ends at once with no sources, or only empty ones', async () => {
    expect(await collect(mergeAscending([], byValue))).toStrictEqual([]);
    expect(await collect(mergeAscending([source([]).iterable, source([[]]).iterable], byValue))).toStrictEqual([]);
  });

  it('asks a source for its next run only once its run was taken: a consumer that stops early leaves the rest unread', async () => {
    const a = source([[1, 2], [3], [4]]);
    const b = source([[10, 20], [30]]);
    const merged = mergeAscending([a.iterable, b.iterable], byValue);
    const taken: number[] = [];
    for await (const item of merged) {
      taken.push(item);
      if (taken.length === 3) break;
    }
    expect(taken).toStrictEqual([1, 2, 3]);
    // The first runs of both, then a's second once 2 was taken; nothing after 3, which the consumer kept.
    expect([a.state.pulled, b.state.pulled]).toStrictEqual([2, 1]);
  });

  it('closes every source when the consumer stops early, and when the merge ends', async () => {
    const a = singles([1, 2]);
    const b = singles([3]);
    for await (const item of mergeAscending([a.iterable, b.iterable], byValue)) if (item === 1) break;
    expect([a.state.closed, b.state.closed]).toStrictEqual([true, true]);

    const c = singles([1]);
    const d = singles([2]);
    await collect(mergeAscending([c.iterable, d.iterable], byValue));
    expect([c.state.closed, d.state.closed]).toStrictEqual([true, true]);
  });

  it('passes a failing source’s error on, after closing the sources', async () => {
    const good = singles([1, 2]);
    const failing: AsyncIterable<number[]> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          throw new Error('page read failed');
        },
      }),
    };
    await expect(collect(mergeAscending([good.iterable, failing], byValue))).rejects.toThrow('page read failed');
    expect(good.state.closed).toBe(true);
  });

  it('passes on an error from a later run, after the items before it', async () => {
    let pulled = 0;
    const failingLater: AsyncIterable<number[]> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (pulled++ === 0) return { done: false, value: [1, 2] };
          throw new Error('second page failed');
        },
      }),
    };
    const taken: number[] = [];
    await expect(
      (async () => {
        for await (const item of mergeAscending([failingLater, singles([5]).iterable], byValue)) taken.push(item);
      })(),
    ).rejects.toThrow('second page failed');
    expect(taken).toStrictEqual([1, 2]);
  });
});
