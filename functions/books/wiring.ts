import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BookService } from '../../shared/books/book-service';
import { readSetting } from '../../shared/config';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let client: DynamoDBDocumentClient | undefined;
let booksTableName: string | undefined;
let service: BookService | undefined;

/** A service on the container's client and table, both read once from the environment. */
const buildBookService = (): BookService => {
  client ??= createDocumentClient();
  booksTableName ??= readSetting('booksTableName');
  return new BookService(new DynamoBookStore(client, booksTableName));
};

type BookServiceKeeper = (build: () => BookService) => BookService;
let keep: BookServiceKeeper = (build) => {
  service ??= build();
  return service;
};

/**
 * `npm start` runs every function in one process and keeps one service per function instead
 * (local/function-services.ts), as each has its own containers on Lambda (and its own schema check).
 */
export const keepBookServicesWith = (keeper: BookServiceKeeper): void => {
  keep = keeper;
};

/** The book functions' composition root: one service per container, built on first use from the environment. */
export const bookService = (): BookService => keep(buildBookService);

/**
 * `REQUIRE_IF_MATCH=true` (the stack's `requireIfMatch` option): PUT, PATCH and DELETE without
 * If-Match get 428, so no client can overwrite a change it has not seen. Read per request, so a
 * test may switch it.
 */
export const requireIfMatch = (): boolean => readSetting('requireIfMatch');
