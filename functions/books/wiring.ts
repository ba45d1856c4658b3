import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BookService } from '../../shared/books/book-service';
import { readSetting } from '../../shared/config';
import { MAX_RESPONSE_BODY_BYTES } from '../../shared/http/json-array';
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

/** The book functions' composition root: one service per container, built on first use from the environment. */
export const bookService = (): BookService => {
  service ??= new BookService(new DynamoBookStore(booksDocumentClient(), readSetting('booksTableName')));
  return service;
};

/**
 * The largest whole-list body a response carries: what Lambda delivers. Exported, like the client,
 * as a seam: a test lowers it to see the list's 422 without storing 6 MB of books first.
 */
export const listResponseCeiling = { bytes: MAX_RESPONSE_BODY_BYTES };
