/**
 * Merges sources that are each in ascending order into one ascending sequence, pulling from a source
 * only when its head has been taken: a consumer that stops early leaves the sources unread. On equal
 * keys the earlier source goes first, so the merge is stable. Written here because it is a dozen
 * lines over async iterators, which no maintained library merges lazily.
 */
export async function* mergeAscending<T>(
  sources: AsyncIterable<T>[],
  keyOf: (item: T) => number,
): AsyncGenerator<T, void, undefined> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  try {
    const heads = await Promise.all(iterators.map((iterator) => iterator.next()));
    while (true) {
      let smallest = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i] as IteratorResult<T>;
        if (head.done) continue;
        if (smallest < 0 || keyOf(head.value) < keyOf((heads[smallest] as IteratorYieldResult<T>).value)) smallest = i;
      }
      if (smallest < 0) return;
      yield (heads[smallest] as IteratorYieldResult<T>).value;
      heads[smallest] = await (iterators[smallest] as AsyncIterator<T>).next();
    }
  } finally {
    await Promise.all(iterators.map((iterator) => iterator.return?.()));
  }
}
