import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BookService } from '../../shared/books/book-service';
import { DynamoBookStore } from '../../shared/store/dynamodb-book-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let client: DynamoDBDocumentClient | undefined;
let service: BookService | undefined;

/**
 * The DynamoDB client of this container, built on first use from the environment. Exported as the
 * seam through which fault tests add middleware that fails chosen commands.
 */
export const booksDocumentClient = (): DynamoDBDocumentClient => {
  client ??= createDocumentClient();
  return client;
};

/** The functions' composition root: one service per container, built on first use from the environment. */
export const bookService = (): BookService => {
  if (!service) {
    const tableName = process.env.BOOKS_TABLE_NAME;
    if (!tableName) throw new Error('BOOKS_TABLE_NAME is not set');
    service = new BookService(new DynamoBookStore(booksDocumentClient(), tableName));
  }
  return service;
};

/**
 * `REQUIRE_IF_MATCH=true` (the stack's `requireIfMatch` option): PUT, PATCH and DELETE without
 * If-Match get 428, so no client can overwrite a change it has not seen.
 */
export const requireIfMatch = (): boolean => process.env.REQUIRE_IF_MATCH === 'true';
