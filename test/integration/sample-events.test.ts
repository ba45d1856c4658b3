import { readdirSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/gateway';
import { bufferedHandler } from '../../local/streaming-response';
import { AUTHORIZER, ROUTES } from '../../shared/api/routes';
import { prepareFunctionEnvironment } from '../support/local-api';

/**
 * The sample events under events/ (for `sam local invoke -e`) run through the real handlers against
 * Dynoxide, in this order, so they stay valid as the handlers change.
 */
const EXPECTED: [file: string, outcome: number | 'Allow' | 'Deny'][] = [
  ['create-book.json', 201],
  ['get-book.json', 200],
  ['list-books.json', 200],
  ['replace-book.json', 200],
  ['patch-book.json', 200],
  ['delete-book.json', 204],
  ['get-openapi.json', 200],
  ['get-asyncapi.json', 200],
  ['authorizer-basic.json', 'Allow'],
  ['authorizer-no-credentials.json', 'Deny'],
];

const load = (file: string) => JSON.parse(readFileSync(`events/${file}`, 'utf8'));

type Handler = (event: unknown, context: unknown) => Promise<Record<string, unknown>>;
/** A streaming handler (the list) is invoked as API Gateway invokes it, its body collected. */
const handlerOf = async (entry: string): Promise<Handler> =>
  bufferedHandler((await import(/* @vite-ignore */ `../../${entry}`)).handler) as unknown as Handler;

describe('sample events under events/', () => {
  beforeAll(async () => {
    await prepareFunctionEnvironment({ NONCE_SECRET: 'sample-events' });
  });

  it('has an expectation for every event file', () => {
    const files = readdirSync('events').filter((file) => file.endsWith('.json') && file !== 'sam-env.json');
    expect(files.sort()).toEqual(EXPECTED.map(([file]) => file).sort());
  });

  it.each(EXPECTED)('%s runs through its handler: %s', async (file, outcome) => {
    const event = load(file);
    if (event.type === 'REQUEST') {
      const authorize = await handlerOf(AUTHORIZER.entry);
      const result = (await authorize(
        event as APIGatewayRequestAuthorizerEvent,
        lambdaContext(AUTHORIZER.name, event.requestContext.requestId),
      )) as { policyDocument: { Statement: { Effect: string }[] }; context: Record<string, string> };
      expect(result.policyDocument.Statement[0]?.Effect).toBe(outcome);
      if (outcome === 'Deny') expect(result.context.challenge).toMatch(/^Digest realm="books"/);
      else expect(result.context.user).toBe('demo');
      return;
    }
    const proxy = event as APIGatewayProxyEvent;
    const route = ROUTES.find((r) => r.method === proxy.httpMethod && r.path === proxy.resource);
    expect(route, `no route for ${proxy.httpMethod} ${proxy.resource}`).toBeDefined();
    const handle = await handlerOf(route?.entry as string);
    const response = await handle(proxy, lambdaContext(route?.name as string, proxy.requestContext.requestId));
    expect(response.statusCode, String(response.body)).toBe(outcome);
  });
});
