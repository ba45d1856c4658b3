import { expectErrorBody, expectNoBody, expectStatus, fail } from '../expect';
import type { Check, CheckContext, HttpResponse } from '../types';
import { bookAt, CONTRACT, refusedCreate, withBasic } from './support';

/**
 * The methods around the routes (docs/contract.md#routes): HEAD, OPTIONS with and without a
 * preflight's fields, and the 405 of a method a path does not take, whatever its body. On AWS a
 * function answers each of them (none is a gateway response), so `sam local` runs them too.
 */

/** API Gateway's own answer when a method's integration fails: what a broken OPTIONS or 405 looks like. */
const GATEWAY_FAILURE = /^\s*\{\s*"message"\s*:\s*"An unexpected error occurred"\s*\}\s*$/;

/** An origin no deployment lists: it must never get a CORS grant. */
const UNLISTED_ORIGIN = 'https://verify-deployment.invalid';

const BOOKS = { path: '/api/books', allow: 'GET, HEAD, POST, OPTIONS' };
const ONE_BOOK = { path: '/api/books/1', allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' };

/** Names API Gateway's own 500 for what it is, rather than as one more unexpected status. */
const expectNotGatewayFailure = (response: HttpResponse, what: string) => {
  if (response.status >= 500 && GATEWAY_FAILURE.test(response.text))
    fail(
      `${what}: API Gateway's own ${response.status} ${response.text.trim()}, not the API's answer: the method's integration failed (the execution log names the cause)`,
    );
};

const expectAllow = (response: HttpResponse, allow: string, what: string) => {
  const field = response.headers.get('allow');
  if (field !== allow) fail(`${what}: Allow is ${JSON.stringify(field)}, expected "${allow}"`);
};

const corsFields = (response: HttpResponse) =>
  [...response.headers.keys()].filter((name) => name.toLowerCase().startsWith('access-control-'));

const options = (context: CheckContext, path: string, headers: Record<string, string> = {}) =>
  context.http.send({ method: 'OPTIONS', target: path, headers });

/** The fields a browser's preflight for a PUT with credentials and a JSON body sends. */
const preflightFields = (origin: string) => ({
  origin,
  'access-control-request-method': 'PUT',
  'access-control-request-headers': 'authorization, content-type',
});

const expectOptionsAnswer = (response: HttpResponse, allow: string, what: string) => {
  expectNotGatewayFailure(response, what);
  expectStatus(response, 204, what);
  expectAllow(response, allow, what);
  expectNoBody(response, what);
};

export const METHOD_CHECKS: readonly Check[] = [
  {
    id: 'head',
    name: 'HEAD /api/books/{id} gets the GET’s status and headers, and no body',
    needsGatewayResponses: false,
    needs: ['read'],
    run: async (context) => {
      const target = `/api/books/${bookAt(context, 0).id}`;
      const get = await context.http.send({ target, headers: withBasic(context) });
      const head = await context.http.send({ method: 'HEAD', target, headers: withBasic(context) });
      expectStatus(get, 200, `GET ${target}`);
      expectStatus(head, 200, `HEAD ${target}`);
      expectNoBody(head, `HEAD ${target}`);
      for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options']) {
        if (head.headers.get(name) !== get.headers.get(name))
          fail(
            `HEAD ${target}: ${name} is ${JSON.stringify(head.headers.get(name))}, the GET's ${JSON.stringify(get.headers.get(name))}`,
          );
      }
      return undefined;
    },
  },
  {
    id: 'options',
    name: 'OPTIONS without credentials gets 204 with Allow, no body and no CORS grant',
    needsGatewayResponses: false,
    run: async (context) => {
      for (const { path, allow } of [BOOKS, ONE_BOOK]) {
        const response = await options(context, path);
        expectOptionsAnswer(response, allow, `OPTIONS ${path}`);
        if (corsFields(response).includes('access-control-allow-origin'))
          fail(`OPTIONS ${path} without Origin: a CORS grant (${corsFields(response).join(', ')})`);
      }
      return undefined;
    },
  },
  {
    id: 'preflight',
    name: 'a CORS preflight gets 204 with Allow, and a grant only for the origin --origin names',
    needsGatewayResponses: false,
    run: async (context) => {
      const { path, allow } = ONE_BOOK;
      const unlisted = await options(context, path, preflightFields(UNLISTED_ORIGIN));
      expectOptionsAnswer(unlisted, allow, `preflight from ${UNLISTED_ORIGIN}`);
      if (corsFields(unlisted).length > 0)
        fail(
          `preflight from ${UNLISTED_ORIGIN}: CORS fields for an unlisted origin (${corsFields(unlisted).join(', ')})`,
        );
      if (!context.origin) return 'no --origin given: only checked that an unlisted origin gets no grant';
      const what = `preflight from ${context.origin}`;
      const listed = await options(context, path, preflightFields(context.origin));
      expectOptionsAnswer(listed, allow, what);
      const expected = {
        'access-control-allow-origin': context.origin,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': allow,
      };
      for (const [name, value] of Object.entries(expected)) {
        if (listed.headers.get(name) !== value)
          fail(`${what}: ${name} is ${JSON.stringify(listed.headers.get(name))}, expected "${value}"`);
      }
      const headers = (listed.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const name of ['authorization', 'content-type']) {
        if (!headers.split(/\s*,\s*/).includes(name)) fail(`${what}: Access-Control-Allow-Headers lacks ${name}`);
      }
      return `granted to ${context.origin}`;
    },
  },
  {
    id: 'method-not-allowed',
    name: 'a method a path does not take gets 405 with Allow and the contract’s body, with a JSON or a text/plain body',
    needsGatewayResponses: false,
    run: async (context) => {
      for (const [contentType, body] of [
        ['application/json', JSON.stringify({ title: 'not a route' })],
        ['text/plain', 'not a route'],
      ] as const) {
        const what = `DELETE ${BOOKS.path} with a ${contentType} body`;
        const response = await context.http.send({
          method: 'DELETE',
          target: BOOKS.path,
          headers: { 'content-type': contentType },
          body,
        });
        expectNotGatewayFailure(response, what);
        expectErrorBody(response, 405, { message: CONTRACT.methodNotAllowed }, what);
        expectAllow(response, BOOKS.allow, what);
      }
      return undefined;
    },
  },
  {
    id: 'not-utf8',
    name: 'a JSON body that is not UTF-8 gets 400 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      // `{"title":"` then 0xFF, a byte UTF-8 never uses, then `"}`.
      const body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      const what = 'POST with bytes that are not UTF-8';
      const response = await refusedCreate(context, { 'content-type': 'application/json' }, body);
      expectNotGatewayFailure(response, what);
      expectErrorBody(response, 400, { errors: { body: CONTRACT.notUtf8 } }, what);
      return undefined;
    },
  },
];
