import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BookService } from '../../shared/books/book-service';
import { readSetting } from '../../shared/config';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';
import { runningFunction } from '../../shared/store/running-function';

let client: DynamoDBDocumentClient | undefined;
let booksTableName: string | undefined;
const services = new Map<string | undefined, BookService>();

/**
 * The DynamoDB client of this container, built on first use from the environment. Exported as the
 * seam through which fault tests add middleware that fails chosen commands.
 */
export const booksDocumentClient = (): DynamoDBDocumentClient => {
  client ??= createDocumentClient();
  return client;
};

/**
 * The book functions' composition root: one service per container, built on first use from the
 * environment. `npm start` runs every function in one process, so each keeps its own there, as
 * each has its own containers on Lambda (and its own schema check, which its role must allow).
 */
export const bookService = (): BookService => {
  const fn = runningFunction();
  let service = services.get(fn);
  if (!service) {
    // The table, like the client, is the container's: read once, so every function's store agrees.
    booksTableName ??= readSetting('booksTableName');
    service = new BookService(new DynamoBookStore(booksDocumentClient(), booksTableName));
    services.set(fn, service);
  }
  return service;
};

/**
 * `REQUIRE_IF_MATCH=true` (the stack's `requireIfMatch` option): PUT, PATCH and DELETE without
 * If-Match get 428, so no client can overwrite a change it has not seen. Read per request, so a
 * test may switch it.
 */
export const requireIfMatch = (): boolean => readSetting('requireIfMatch');
