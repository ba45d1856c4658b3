import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/gateway';
import { bufferedHandler } from '../../local/streaming-response';
import { handlerOf, ROUTES } from '../../shared/api/routes';
import { BASIC_DEMO, prepareFunctionEnvironment } from '../support/local-api';
import { proxyEventFor } from '../support/proxy-event';
import { PROJECT_ROOT } from '../support/source-files';

/**
 * The list route's two handlers, the streamed one API Gateway runs and the buffered one `sam local
 * start-api` runs (docs/sam.md), on the same Dynoxide table: every query gets the same status,
 * headers and JSON from both, so the variant cannot drift from the contract the streamed list keeps.
 */
const LIST = ROUTES.find((route) => route.name === 'ListBooks');
const BOOKS = 7;

type Handle = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const load = async (entry: string): Promise<Handle> => {
  const handle = bufferedHandler((await import(join(PROJECT_ROOT, entry))).handler);
  return (event) => handle(event, lambdaContext('ListBooks', event.requestContext.requestId, 300_000));
};

let streamed: Handle;
let buffered: Handle;
const created: { id: number; author: string; publicationYear: number }[] = [];

beforeAll(async () => {
  await prepareFunctionEnvironment();
  const create = (await import('../../functions/books/create')).handler as unknown as Handle;
  for (let i = 0; i < BOOKS; i++) {
    const event = proxyEventFor({
      method: 'POST',
      target: '/api/books',
      headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Variant ${i}`,
        author: i % 2 ? 'Odd Author' : 'Even Author',
        isbn: `variant-${i}`,
        publicationYear: i < 3 ? 1999 : 2001,
      }),
    }) as APIGatewayProxyEvent;
    const response = await create(event);
    expect(response.statusCode, response.body).toBe(201);
    created.push(JSON.parse(response.body));
  }
  streamed = await load(handlerOf(LIST as (typeof ROUTES)[number], false).entry);
  buffered = await load(handlerOf(LIST as (typeof ROUTES)[number], true).entry);
}, 60_000);

const eventFor = (target: string) =>
  proxyEventFor({ method: 'GET', target, headers: { authorization: BASIC_DEMO } }) as APIGatewayProxyEvent;

/** What a client reads: status, the headers the contract names, and the parsed body without its clock. */
const seen = ({ statusCode, headers, body }: APIGatewayProxyResult) => {
  const parsed = body ? JSON.parse(body) : undefined;
  if (parsed && !Array.isArray(parsed)) delete parsed.timestamp;
  return {
    statusCode,
    contentType: headers?.['Content-Type'],
    link: headers?.Link as string | undefined,
    body: parsed,
  };
};

describe('the buffered list answers as the streamed list does', () => {
  it('the route table names a different, non-streaming file for it', () => {
    const route = LIST as (typeof ROUTES)[number];
    expect(handlerOf(route, false)).toEqual({ entry: 'functions/books/list.ts', streaming: true });
    expect(handlerOf(route, true)).toEqual({ entry: 'functions/books/list-buffered.ts', streaming: false });
  });

  it.each([
    '/api/books',
    '/api/books?author=Odd%20Author',
    '/api/books?year=1999',
    '/api/books?author=Even%20Author&year=2001',
    '/api/books?author=Nobody',
    '/api/books?limit=3',
    '/api/books?limit=0',
    '/api/books?year=abc',
    '/api/books?cursor=not-a-cursor',
  ])('%s', async (target) => {
    const fromBuffered = seen(await buffered(eventFor(target)));
    expect(fromBuffered).toEqual(seen(await streamed(eventFor(target))));
    expect(fromBuffered.statusCode).toBeLessThan(500);
  });

  it('lists every book created, in id order, as a whole list', async () => {
    const response = seen(await buffered(eventFor('/api/books')));
    expect(response).toMatchObject({ statusCode: 200, contentType: 'application/json' });
    expect(response.body).toEqual(created);
  });

  it('pages to the end by following Link, as the streamed list does', async () => {
    const follow = async (handle: Handle) => {
      const pages: unknown[][] = [];
      let target: string | undefined = '/api/books?limit=3&year=2001';
      while (target) {
        const response = seen(await handle(eventFor(target)));
        expect(response.statusCode).toBe(200);
        pages.push(response.body);
        const next = response.link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
        target = next && new URL(next).pathname + new URL(next).search;
      }
      return pages;
    };
    const pages = await follow(buffered);
    expect(pages.map((page) => page.length)).toEqual([3, 1]);
    expect(pages.flat()).toEqual(created.filter((book) => book.publicationYear === 2001));
    expect(pages).toEqual(await follow(streamed));
  });

  it('answers the same 422 with the page hint above the operator’s cap', async () => {
    process.env.LIST_MAX_BOOKS = String(BOOKS - 1);
    try {
      const fromBuffered = seen(await buffered(eventFor('/api/books')));
      expect(fromBuffered).toMatchObject({ statusCode: 422, body: { status: 422 } });
      expect(fromBuffered.body.message).toMatch(/\?limit=/);
      expect(fromBuffered).toEqual(seen(await streamed(eventFor('/api/books'))));
      expect(seen(await buffered(eventFor('/api/books?year=1999'))).statusCode).toBe(200);
    } finally {
      delete process.env.LIST_MAX_BOOKS;
    }
  });
});
