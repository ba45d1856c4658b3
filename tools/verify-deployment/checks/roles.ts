import { isDeepStrictEqual } from 'node:util';
import { expectStatus, fail, isIsoTimestamp, parseJson } from '../expect';
import { basicAuthorization } from '../http';
import type { Check, CheckContext, Credentials } from '../types';

/** The reader's role checks, run when the operator names a reader (`--reader`). */
const asReader = (context: CheckContext, headers: Record<string, string> = {}) => ({
  authorization: basicAuthorization(context.reader as Credentials),
  ...headers,
});

export const ROLE_CHECKS: readonly Check[] = [
  {
    id: 'reader-role',
    name: 'a reader (--reader) gets 200 on GET /api/books and 403 on POST, with the contract’s error body and no challenge',
    needsGatewayResponses: false,
    run: async (context) => {
      const read = await context.http.send({ target: '/api/books?limit=1', headers: asReader(context) });
      expectStatus(read, 200, 'GET /api/books as the reader');
      // A run's book, so that a deployment that wrongly lets the reader write leaves nothing behind.
      const fields = context.books.fields(99);
      const write = await context.http.send({
        method: 'POST',
        target: '/api/books',
        headers: asReader(context, { 'content-type': 'application/json' }),
        body: JSON.stringify(fields),
      });
      if (write.status === 201) context.books.recordCreated(parseJson(write, 'POST as the reader'));
      const what = 'POST /api/books as the reader';
      expectStatus(write, 403, what);
      if (write.headers.has('www-authenticate')) fail(`${what}: a 403 carries WWW-Authenticate`);
      const body = parseJson(write, what) as Record<string, unknown>;
      if (!isDeepStrictEqual(Object.keys(body ?? {}).sort(), ['message', 'status', 'timestamp']))
        fail(`${what}: the body is not {timestamp, status, message}`);
      if (body.status !== 403) fail(`${what}: body status is ${JSON.stringify(body.status)}, not 403`);
      if (!isIsoTimestamp(body.timestamp)) fail(`${what}: timestamp ${JSON.stringify(body.timestamp)} is not ISO 8601`);
      if (typeof body.message !== 'string' || body.message === '') fail(`${what}: no message`);
      return `${(context.reader as Credentials).username}: 200 on the read, 403 on the write`;
    },
  },
];
