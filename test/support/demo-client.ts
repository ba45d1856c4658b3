import { sendRequest } from './api-client';
import { BASIC_DEMO } from './local-api';

interface SampleBook {
  title: string;
  author: string;
  publicationYear: number;
}

/**
 * Requests to a local server as the demo user (Basic), and new books from one sample whose ISBNs
 * (`<prefix>-1`, `<prefix>-2`, …) are unique within a test file. `baseUrl` is read per request, as
 * the server is started in `beforeAll`.
 */
export const demoClient = (baseUrl: () => string, isbnPrefix: string, sample: SampleBook) => {
  let sequence = 0;
  const newBook = (extra: Record<string, unknown> = {}) => ({
    ...sample,
    isbn: `${isbnPrefix}-${++sequence}`,
    ...extra,
  });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    sendRequest(baseUrl(), method, path, body, { authorization: BASIC_DEMO, ...headers });
  return { newBook, call };
};
