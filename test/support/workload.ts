import { normalizeIsbn } from '../../shared/books/normalize';
import { entityTag } from '../../shared/http/preconditions';

/**
 * A seeded, randomised workload of book operations with a model of the state they must leave.
 *
 * Concurrency without losing exactness: operations are dispatched in sequence order, up to
 * `concurrency` at a time, but an operation waits while an earlier one that touches the same book
 * or the same normalised ISBN is still in flight (a full list waits for everything). Operations that
 * run together therefore commute, so every status and body is predicted exactly by the model applied
 * in sequence order, and the final database must equal the model. Contended interleavings of one
 * book or ISBN are the race suite's job.
 */

/** mulberry32: a tiny seeded PRNG, so a seed reproduces the operation sequence on any Node version. */
export const prng = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
};
export type Prng = ReturnType<typeof prng>;

export interface ModelBook {
  id: number;
  title: string;
  author: string;
  isbn: string;
  publicationYear: number;
}

export type Input = Omit<ModelBook, 'id'>;

/** One request and what the model says it must answer; `apply` updates the model with the real response. */
export interface Operation {
  name: string;
  method: string;
  /** Resolved at dispatch: targets are named by creation index and known only once that create ended. */
  path: () => string;
  body?: unknown;
  /** Request headers, resolved at dispatch (an If-Match names the version the model holds then). */
  headers?: () => Record<string, string>;
  digest: boolean;
  /**
   * What it touches, evaluated while it waits to be dispatched: the create it targets, that book and
   * the normalised ISBNs it holds or takes. `'*'` waits for (and blocks) everything.
   */
  locks: () => string[];
  /**
   * Evaluated when it is dispatched (its locks held): the status and, for 200/201, the body fields
   * and the ETag the book's version must give.
   */
  expect: () => { status: number; book?: Partial<ModelBook>; list?: ModelBook[]; etag?: string };
  /** Commits the response to the model. */
  apply: (status: number, body: any) => void;
}

export class BookModel {
  readonly books = new Map<number, ModelBook>();
  /** Each book's stored version: 1 when created, one more with every PUT or PATCH that changes something. */
  readonly versions = new Map<number, number>();
  /** Idempotency keys by key: the book its create made and the fields it was created with. */
  readonly keys = new Map<string, ModelBook>();
  /** Keyed creates so far, by creation index: their key and body, for retries. */
  readonly keyed: { index: number; key: string; input: Input }[] = [];
  /** The id each create got, by creation index; null when it was refused. */
  readonly createdIds: (number | null)[] = [];
  /** Creates generated so far (some may still be in flight). */
  issued = 0;
  created = 0;
  removed = 0;

  holder(isbn: string): ModelBook | undefined {
    const key = normalizeIsbn(isbn);
    for (const book of this.books.values()) if (normalizeIsbn(book.isbn) === key) return book;
    return undefined;
  }

  sorted(filter: (book: ModelBook) => boolean = () => true): ModelBook[] {
    return [...this.books.values()].filter(filter).sort((a, b) => a.id - b.id);
  }
}

const AUTHORS = ['Ursula K. Le Guin', 'Octavia E. Butler', 'Stanisław Lem', 'N. K. Jemisin', 'Ted Chiang'];
const YEARS = [1965, 1974, 1987, 2001, 2015];
const bookLock = (id: number) => `book:${id}`;
const isbnLock = (isbn: string) => `isbn:${normalizeIsbn(isbn)}`;
const createLock = (index: number) => `create:${index}`;

/** An ISBN from a small pool, in one of several spellings that normalise alike, so collisions happen. */
const isbnOf = (random: Prng, pool: number) => {
  const n = String(9_780_000_000_000 + random.int(pool));
  return random.pick([n, `${n.slice(0, 3)}-${n.slice(3)}`, `${n.slice(0, 3)} ${n.slice(3, 8)} ${n.slice(8)}`]);
};

/** A tag for If-Match: the current one, or a stale one (another version of the same book). */
const ifMatchOf = (model: BookModel, id: number, stale: boolean) => {
  const version = model.versions.get(id) ?? 1;
  return { 'If-Match': entityTag(id, stale ? (version > 1 ? version - 1 : version + 1) : version) };
};

/** What a create (fresh, or a retry whose key no longer holds) must answer, and its commit to the model. */
const freshCreate = (model: BookModel, input: Input, key: string | undefined) => ({
  expect: () =>
    model.holder(input.isbn) ? { status: 409 } : { status: 201, book: input, etag: undefined as string | undefined },
  apply: (status: number, body: any): number | null => {
    if (status !== 201) return null;
    const book = { id: body.id, ...input };
    model.books.set(body.id, book);
    model.versions.set(body.id, 1);
    if (key !== undefined) model.keys.set(key, book);
    model.created++;
    return body.id;
  },
});

const inputOf = (random: Prng, pool: number): Input => ({
  title: `Title ${random.int(1_000_000)}`,
  author: random.pick(AUTHORS),
  isbn: isbnOf(random, pool),
  publicationYear: random.pick(YEARS),
});

/** An id that is never issued in a test run, for the 404 paths. */
const NEVER_ISSUED = 9_000_000;

/**
 * A target: the book of an earlier create (by creation index, so the choice depends on the seed
 * alone, not on which ids the server happened to assign), or an id never issued.
 */
const targetOf = (random: Prng, model: BookModel) => {
  const index = model.issued > 0 && random.chance(0.93) ? random.int(model.issued) : undefined;
  const fallback = NEVER_ISSUED + random.int(1_000);
  const id = () => (index === undefined ? fallback : (model.createdIds[index] ?? fallback));
  const locks = () => {
    if (index !== undefined && model.createdIds[index] === undefined) return [createLock(index)];
    const current = model.books.get(id());
    return [bookLock(id()), ...(current ? [isbnLock(current.isbn)] : [])];
  };
  return { id, locks };
};

/** The next operation of the workload, drawn from `random` alone. */
export const nextOperation = (random: Prng, model: BookModel, isbnPool: number): Operation => {
  const digest = random.chance(0.05);
  const roll = random.next();

  if (roll < 0.3 || model.issued < 5) {
    const input = inputOf(random, isbnPool);
    const index = model.issued++;
    const key = random.chance(0.3) ? `workload-${index}` : undefined;
    if (key !== undefined) model.keyed.push({ index, key, input });
    const fresh = freshCreate(model, input, key);
    return {
      name: key === undefined ? 'create' : 'keyed create',
      method: 'POST',
      path: () => '/api/books',
      body: input,
      ...(key !== undefined && { headers: () => ({ 'Idempotency-Key': `"${key}"` }) }),
      digest,
      locks: () => [createLock(index), isbnLock(input.isbn)],
      expect: fresh.expect,
      apply: (status, body) => {
        model.createdIds[index] = fresh.apply(status, body);
      },
    };
  }
  if (roll < 0.34 && model.keyed.length > 0) {
    // A client retrying a keyed create (it never saw the answer): the first book again, if it stands.
    const { index, key, input } = random.pick(model.keyed);
    const fresh = freshCreate(model, input, key);
    const held = () => {
      const book = model.keys.get(key);
      return book && model.books.has(book.id) ? book : undefined;
    };
    let replayed = false;
    return {
      name: 'retried create',
      method: 'POST',
      path: () => '/api/books',
      body: input,
      headers: () => ({ 'Idempotency-Key': `"${key}"` }),
      digest,
      locks: () => {
        if (model.createdIds[index] === undefined) return [createLock(index)];
        const book = model.keys.get(key);
        return [isbnLock(input.isbn), ...(book ? [bookLock(book.id)] : [])];
      },
      expect: () => {
        const book = held();
        replayed = book !== undefined;
        // The first 201 again: the book as it was created, at version 1, whatever changed since.
        return book ? { status: 201, book, etag: entityTag(book.id, 1) } : fresh.expect();
      },
      apply: (status, body) => {
        if (!replayed) fresh.apply(status, body);
      },
    };
  }
  if (roll < 0.45) {
    const target = targetOf(random, model);
    return {
      name: 'get',
      method: 'GET',
      path: () => `/api/books/${target.id()}`,
      digest,
      locks: target.locks,
      expect: () => {
        const book = model.books.get(target.id());
        return book
          ? { status: 200, book, etag: entityTag(book.id, model.versions.get(book.id) ?? 1) }
          : { status: 404 };
      },
      apply: () => undefined,
    };
  }
  if (roll < 0.75) {
    const target = targetOf(random, model);
    const replace = random.chance(0.45);
    const full = inputOf(random, isbnPool);
    const patch: Partial<Input> = {};
    if (!replace) {
      if (random.chance(0.5)) patch.title = full.title;
      if (random.chance(0.4)) patch.author = full.author;
      if (random.chance(0.4)) patch.publicationYear = full.publicationYear;
      if (random.chance(0.4)) patch.isbn = full.isbn;
    }
    const change = replace ? full : patch;
    const condition = random.chance(0.3) ? random.pick(['current', 'stale'] as const) : undefined;
    const name = `${condition === undefined ? '' : `${condition}-tag `}${replace ? 'replace' : 'patch'}`;
    return {
      name,
      method: replace ? 'PUT' : 'PATCH',
      path: () => `/api/books/${target.id()}`,
      body: change,
      headers: () => (condition === undefined ? {} : ifMatchOf(model, target.id(), condition === 'stale')),
      digest,
      locks: () => [...target.locks(), ...(change.isbn ? [isbnLock(change.isbn)] : [])],
      expect: () => {
        const book = model.books.get(target.id());
        if (!book) return { status: 404 };
        const version = model.versions.get(book.id) ?? 1;
        if (condition === 'stale') return { status: 412 };
        const next = { ...book, ...change };
        const holder = model.holder(next.isbn);
        if (holder && holder.id !== book.id) return { status: 409 };
        const changed = Object.keys(change).length > 0;
        return { status: 200, book: next, etag: entityTag(book.id, changed ? version + 1 : version) };
      },
      apply: (status) => {
        const book = model.books.get(target.id());
        if (status !== 200 || !book) return;
        model.books.set(book.id, { ...book, ...change });
        if (Object.keys(change).length > 0) model.versions.set(book.id, (model.versions.get(book.id) ?? 1) + 1);
      },
    };
  }
  if (roll < 0.88) {
    const target = targetOf(random, model);
    const condition = random.chance(0.3) ? random.pick(['current', 'stale'] as const) : undefined;
    return {
      name: `${condition === undefined ? '' : `${condition}-tag `}delete`,
      method: 'DELETE',
      path: () => `/api/books/${target.id()}`,
      headers: () => (condition === undefined ? {} : ifMatchOf(model, target.id(), condition === 'stale')),
      digest,
      locks: target.locks,
      expect: () => {
        if (!model.books.has(target.id())) return { status: 404 };
        return { status: condition === 'stale' ? 412 : 204 };
      },
      apply: (status) => {
        if (status !== 204) return;
        model.books.delete(target.id());
        model.removed++;
      },
    };
  }
  if (roll < 0.92) {
    const author = random.chance(0.5) ? random.pick(AUTHORS) : undefined;
    const year = random.chance(0.5) ? random.pick(YEARS) : undefined;
    const query = new URLSearchParams();
    if (author) query.set('author', random.chance(0.5) ? author.toUpperCase() : author);
    if (year) query.set('year', String(year));
    const search = query.size > 0 ? `?${query}` : '';
    return {
      name: 'list',
      method: 'GET',
      path: () => `/api/books${search}`,
      digest,
      locks: () => ['*'],
      expect: () => ({
        status: 200,
        list: model.sorted(
          (b) => (author === undefined || b.author === author) && (year === undefined || b.publicationYear === year),
        ),
      }),
      apply: () => undefined,
    };
  }
  // A client mistake among the traffic: it must be refused without touching anything.
  const id = NEVER_ISSUED + random.int(1_000);
  const mistake = random.pick([
    { method: 'POST', path: '/api/books', body: { title: '', author: 'A', isbn: 'x', publicationYear: 999 } },
    { method: 'PUT', path: `/api/books/${id}`, body: { title: 'T' } },
    { method: 'PATCH', path: `/api/books/${id}`, body: { publicationYear: 'soon' } },
    { method: 'GET', path: '/api/books/not-a-number' },
    { method: 'GET', path: '/api/books?year=nineteen' },
  ]);
  return {
    name: 'mistake',
    method: mistake.method,
    path: () => mistake.path,
    body: mistake.body,
    digest,
    locks: () => [],
    expect: () => ({ status: 400 }),
    apply: () => undefined,
  };
};

/**
 * Runs operations in order with at most `concurrency` in flight, holding each one's locks while it
 * runs; reports the peak and mean number in flight.
 */
export const runScheduled = async (
  operations: AsyncIterable<Operation> | Iterable<Operation>,
  concurrency: number,
  execute: (operation: Operation) => Promise<void>,
) => {
  const held = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  let samples = 0;
  let sum = 0;
  let wake: (() => void) | undefined;
  const changed = () =>
    new Promise<void>((done) => {
      wake = done;
    });
  const free = (operation: Operation) => {
    const locks = operation.locks();
    return locks.includes('*') ? inFlight === 0 : !held.has('*') && !locks.some((lock) => held.has(lock));
  };
  const running = new Set<Promise<void>>();
  let failure: unknown;

  for await (const operation of operations) {
    while (!failure && (inFlight >= concurrency || !free(operation))) await changed();
    if (failure) break;
    const locks = operation.locks();
    for (const lock of locks) held.set(lock, (held.get(lock) ?? 0) + 1);
    inFlight++;
    peak = Math.max(peak, inFlight);
    samples++;
    sum += inFlight;
    const task = execute(operation)
      .catch((error) => {
        failure ??= error;
      })
      .finally(() => {
        for (const lock of locks) {
          const count = (held.get(lock) ?? 1) - 1;
          if (count === 0) held.delete(lock);
          else held.set(lock, count);
        }
        inFlight--;
        running.delete(task);
        wake?.();
      });
    running.add(task);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return { peak, mean: sum / Math.max(samples, 1) };
};
