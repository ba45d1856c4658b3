import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { keepBookServicesWith } from '../functions/books/wiring';
import type { BookService } from '../shared/books/book-service';
import { runningFunction } from './running-function';

/** The book functions' composition root, which keeps one service per process unless told otherwise. */
const BOOK_WIRING = 'functions/books/wiring.ts';

const services = new Map<string | undefined, BookService>();
let kept: Promise<void> | undefined;

/**
 * On Lambda each function has its own containers, so its own book service (and its own schema
 * check, which its role must allow: npm run test:permissions). `npm start` runs every function in
 * one process: this keeps one service per function there, from outside the functions' bundles.
 */
export const keepBookServicesPerFunction = (root: string): Promise<void> => {
  const wiringPath = resolve(root, BOOK_WIRING);
  // A root of stand-in handlers may have no book functions at all.
  if (!existsSync(wiringPath)) return Promise.resolve();
  // By file URL, as local/invocation.ts imports the handlers: the very module they are wired by.
  kept ??= import(pathToFileURL(wiringPath).href).then(
    (wiring: { keepBookServicesWith: typeof keepBookServicesWith }) =>
      wiring.keepBookServicesWith((build) => {
        const name = runningFunction();
        let service = services.get(name);
        if (!service) {
          service = build();
          services.set(name, service);
        }
        return service;
      }),
  );
  return kept;
};
