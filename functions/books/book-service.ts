import { BookService } from '../../shared/books/book-service';
import { DynamoBookStore } from '../../shared/store/dynamodb-book-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let service: BookService | undefined;

/** The functions' composition root: one service per container, built on first use from the environment. */
export const bookService = (): BookService => {
  if (!service) {
    const tableName = process.env.BOOKS_TABLE_NAME;
    if (!tableName) throw new Error('BOOKS_TABLE_NAME is not set');
    service = new BookService(new DynamoBookStore(createDocumentClient(), tableName));
  }
  return service;
};
