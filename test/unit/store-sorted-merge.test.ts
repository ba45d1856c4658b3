import { describe, expect, it } from 'vitest';
import { mergeAscending } from '../../shared/store/sorted-merge';

/** A source over `values` that records how far it was read and whether it was closed. */
const source = (values: number[]) => {
  const state = { pulled: 0, closed: false };
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const value = values[state.pulled];
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

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

const byValue = (n: number) => n;

describe('mergeAscending', () => {
  it('merges ascending sources into one ascending sequence, every item once', async () => {
    const sources = [[1, 4, 9], [2, 3, 10, 11], [], [5]].map((values) => source(values).iterable);
    expect(await collect(mergeAscending(sources, byValue))).toStrictEqual([1, 2, 3, 4, 5, 9, 10, 11]);
  });

  it('on equal keys takes the earlier source first, so a merge is stable', async () => {
    const labelled = [
      { tag: 'a', keys: [1, 2] },
      { tag: 'b', keys: [1, 2] },
    ].map(({ tag, keys }) => ({
      async *[Symbol.asyncIterator]() {
        for (const key of keys) yield { key, tag };
      },
    }));
    expect(await collect(mergeAscending(labelled, (item) => item.key))).toStrictEqual([
      { key: 1, tag: 'a' },
      { key: 1, tag: 'b' },
      { key: 2, tag: 'a' },
      { key: 2, tag: 'b' },
    ]);
  });

  it('orders by the key it is given, not by the items themselves', async () => {
    const books = [[{ id: 3 }, { id: 30 }], [{ id: 20 }]].map((list) => ({
      async *[Symbol.asyncIterator]() {
        yield* list;
      },
    }));
    const merged = await collect(mergeAscending(books, (book) => book.id));
    expect(merged.map((book) => book.id)).toStrictEqual([3, 20, 30]);
  });

  it('takes the smallest head wherever its source stands, first, middle or last', async () => {
    for (const order of [
      [[1], [2], [3]],
      [[2], [1], [3]],
      [[3], [2], [1]],
    ]) {
      const sources = order.map((values) => source(values).iterable);
      expect(await collect(mergeAscending(sources, byValue))).toStrictEqual([1, 2, 3]);
    }
  });

  it('ends at once with no sources, or only empty ones', async () => {
    expect(await collect(mergeAscending([], byValue))).toStrictEqual([]);
    expect(await collect(mergeAscending([source([]).iterable, source([]).iterable], byValue))).toStrictEqual([]);
  });

  it('reads a source only when its head was taken: a consumer that stops early leaves the rest unread', async () => {
    const a = source([1, 2, 3, 4]);
    const b = source([10, 20, 30]);
    const merged = mergeAscending([a.iterable, b.iterable], byValue);
    const taken: number[] = [];
    for await (const item of merged) {
      taken.push(item);
      if (taken.length === 2) break;
    }
    expect(taken).toStrictEqual([1, 2]);
    // The heads 1 and 10, then 2 once 1 was taken; nothing after 2, which the consumer kept.
    expect([a.state.pulled, b.state.pulled]).toStrictEqual([2, 1]);
  });

  it('closes every source when the consumer stops early, and when the merge ends', async () => {
    const a = source([1, 2]);
    const b = source([3]);
    for await (const item of mergeAscending([a.iterable, b.iterable], byValue)) if (item === 1) break;
    expect([a.state.closed, b.state.closed]).toStrictEqual([true, true]);

    const c = source([1]);
    const d = source([2]);
    await collect(mergeAscending([c.iterable, d.iterable], byValue));
    expect([c.state.closed, d.state.closed]).toStrictEqual([true, true]);
  });

  it('passes a failing source’s error on, after closing the sources', async () => {
    const good = source([1, 2]);
    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          throw new Error('page read failed');
        },
      }),
    };
    await expect(collect(mergeAscending([good.iterable, failing], byValue))).rejects.toThrow('page read failed');
    expect(good.state.closed).toBe(true);
  });
});
