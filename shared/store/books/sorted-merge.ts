/**
 * Merges ascending runs (pages) from each source into one ascending sequence, asking a source for
 * its next run only once the current one is taken, and taking items within a run without an await.
 * Written here because no maintained library merges async iterators lazily.
 */
export async function* mergeAscending<T>(
  sources: AsyncIterable<readonly T[]>[],
  keyOf: (item: T) => number,
): AsyncGenerator<T, void, undefined> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  /** Each source's run in hand (undefined once the source has ended) and how far it was taken. */
  const runs: (readonly T[] | undefined)[] = [];
  const taken: number[] = [];
  const nextRun = async (i: number) => {
    const iterator = iterators[i] as AsyncIterator<readonly T[]>;
    for (let next = await iterator.next(); ; next = await iterator.next()) {
      if (next.done || next.value.length > 0) {
        runs[i] = next.done ? undefined : next.value;
        taken[i] = 0;
        return;
      }
    }
  };
  try {
    await Promise.all(iterators.map((_, i) => nextRun(i)));
    while (true) {
      let smallest = -1;
      let smallestKey = 0;
      for (let i = 0; i < runs.length; i++) {
        const run = runs[i];
        if (run === undefined) continue;
        const key = keyOf(run[taken[i] as number] as T);
        if (smallest < 0 || key < smallestKey) {
          smallest = i;
          smallestKey = key;
        }
      }
      if (smallest < 0) return;
      const run = runs[smallest] as readonly T[];
      const position = taken[smallest] as number;
      taken[smallest] = position + 1;
      yield run[position] as T;
      if (position + 1 === run.length) await nextRun(smallest);
    }
  } finally {
    await Promise.all(iterators.map((iterator) => iterator.return?.()));
  }
}
