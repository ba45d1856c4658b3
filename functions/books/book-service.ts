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
 * The operator's cap on an unpaged list (`LIST_MAX_BOOKS`, set by the stack's `listMaxBooks`):
 * undefined when unset. A value that is not a positive whole number stops the function rather than
 * run without the protection the operator asked for.
 */
export const listMaxBooks = (): number | undefined => {
  const value = process.env.LIST_MAX_BOOKS;
  if (value === undefined || value === '') return undefined;
  const cap = Number(value);
  if (!Number.isSafeInteger(cap) || cap < 1)
    throw new Error(`LIST_MAX_BOOKS must be a positive whole number, got "${value}"`);
  return cap;
};
