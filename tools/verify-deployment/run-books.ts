import { randomBytes } from 'node:crypto';

export interface BookFields {
  title: string;
  author: string;
  isbn: string;
  publicationYear: number;
}

export interface Book extends BookFields {
  id: number;
  createdAt: string;
  updatedAt: string;
}

/** A run id: when it started and some randomness, so that two runs, even at once, never share a book. */
export const newRunId = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`.toUpperCase();

/**
 * The books of one run. Their author and ISBNs carry the run id, so the run can find what it created
 * (even a create whose answer was lost) and can never take another client's book for its own.
 * Every id a 201 names is recorded at once, before anything is checked, for the clean-up.
 */
export class RunBooks {
  readonly author: string;
  readonly isbnPrefix: string;
  /** The books this run made that are not yet deleted, by id, in their latest known state. */
  readonly current = new Map<number, Book>();

  constructor(readonly runId: string) {
    this.author = `Verify Deployment ${runId}`;
    this.isbnPrefix = `VD-${runId}-`;
  }

  /** The n-th book of the run: a distinct year per book, so a year filter tells them apart. */
  fields(n: number): BookFields {
    return {
      title: `verify-deployment ${this.runId} book ${n}`,
      author: this.author,
      isbn: `${this.isbnPrefix}${n}`,
      publicationYear: 1900 + n,
    };
  }

  record(book: Book) {
    this.current.set(book.id, book);
  }

  /** A body that names an id from a 201: recorded, whatever else is wrong with it. */
  recordCreated(body: unknown) {
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) this.record(body as Book);
  }

  forget(id: number) {
    this.current.delete(id);
  }

  isOurs(book: { isbn?: unknown; author?: unknown }) {
    return (
      book.author === this.author &&
      typeof book.isbn === 'string' &&
      book.isbn.toUpperCase().startsWith(this.isbnPrefix)
    );
  }

  /** The run's books still there, in ascending id order (the list's order). */
  ids() {
    return [...this.current.keys()].sort((a, b) => a - b);
  }
}
