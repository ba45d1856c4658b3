import { expectErrorBody, expectGatewayErrorBody, expectNoBody, expectStatus } from '../expect';
import type { Check } from '../types';
import { CONTRACT, call, refusedCreate } from './support';

/** Needs the stack's gateway responses, which `sam local start-api` does not apply. */
const GATEWAY = true;

/** The unknown route, and the error bodies the contract fixes word for word. */
export const ERROR_CHECKS: readonly Check[] = [
  {
    id: 'unknown-route',
    name: 'an unknown route gets 404 with no body',
    needsGatewayResponses: GATEWAY,
    needs: ['basic'],
    run: async (context) => {
      const target = `/api/verify-deployment-${context.books.runId.toLowerCase()}`;
      const response = await call(context, 'GET', target);
      expectStatus(response, 404, `GET ${target}`);
      expectNoBody(response, `GET ${target}`);
      return undefined;
    },
  },
  {
    id: 'unsupported-media-type',
    name: 'a body that is not application/json gets 415 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const body = JSON.stringify(context.books.fields(4));
      const response = await refusedCreate(context, { 'content-type': 'text/plain' }, body);
      expectErrorBody(response, 415, { message: CONTRACT.mediaType }, 'POST as text/plain');
      return undefined;
    },
  },
  {
    id: 'validation',
    name: 'an invalid book and malformed JSON get 400 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const json = { 'content-type': 'application/json' };
      const invalid = JSON.stringify({ ...context.books.fields(5), title: '  ', publicationYear: 999 });
      expectErrorBody(
        await refusedCreate(context, json, invalid),
        400,
        { errors: { title: CONTRACT.titleRequired, publicationYear: CONTRACT.invalidYear } },
        'POST with a blank title and year 999',
      );
      expectErrorBody(
        await refusedCreate(context, json, '{"title": "unfinished'),
        400,
        { errors: { body: CONTRACT.invalidJson } },
        'POST with malformed JSON',
      );
      return undefined;
    },
  },
  {
    id: 'too-large',
    name: 'a body over 64 KiB gets 413 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const fields = context.books.fields(6);
      const padding = 'x'.repeat(CONTRACT.maxBodyBytes);
      const body = JSON.stringify({ ...fields, title: `${fields.title} ${padding}` });
      const response = await refusedCreate(context, { 'content-type': 'application/json' }, body);
      expectErrorBody(response, 413, { message: CONTRACT.tooLarge }, `POST of ${Buffer.byteLength(body)} bytes`);
      return undefined;
    },
  },
  {
    id: 'too-large-for-lambda',
    name: 'a 7 MB body (past Lambda’s invoke payload once base64-encoded) gets the gateway’s 413 with the same message',
    needsGatewayResponses: GATEWAY,
    needs: ['basic'],
    run: async (context) => {
      const fields = context.books.fields(7);
      const body = JSON.stringify({ ...fields, title: `${fields.title} ${'x'.repeat(7 * 1024 * 1024)}` });
      const response = await refusedCreate(context, { 'content-type': 'application/json' }, body);
      expectGatewayErrorBody(response, 413, CONTRACT.tooLarge, `POST of ${Buffer.byteLength(body)} bytes`);
      return undefined;
    },
  },
];
