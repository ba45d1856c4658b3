import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { stepsToRun } from '../../ops/migrations/run';
import type { MigrationStep } from '../../ops/migrations/step';
import { BookStoreNotReadyError } from '../../shared/books/errors';
import type { HttpResponse } from '../../shared/http/types';
import { SchemaVersionError } from '../../shared/store/errors';
import { captureLogs } from '../support/log-capture';
import { contextFor, proxyEventFor } from '../support/proxy-event';

/**
 * A deploy ahead of its upgrade step: a books table older than the code serves is the operator's
 * to migrate, so the client gets the contract's 503 with Retry-After and the log one line naming
 * the command. And which steps each phase of `npm run data:migrate` runs.
 */
Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'INFO' });
const { httpHandler } = await import('../../shared/http/http-handler');

const logs = captureLogs();
afterAll(() => logs.restore());

describe('a books table too old for the code', () => {
  it('answers 503 with Retry-After and the error body, and logs exactly one line naming npm run data:migrate', async () => {
    const cause = new SchemaVersionError('Books', 0, 1, 'npm run data:migrate');
    const handler = httpHandler(async () => {
      throw new BookStoreNotReadyError(cause.message, { cause });
    }) as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;
    const event = proxyEventFor({ method: 'GET', target: '/api/books/1' }) as APIGatewayProxyEvent;
    logs.clear();
    const response = await handler(event, contextFor(event));
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('30');
    expect(JSON.parse(response.body)).toStrictEqual({
      timestamp: expect.any(String),
      status: 503,
      message: 'The service is being upgraded and cannot serve books at this moment; try again',
    });
    expect(response.body).not.toContain('Books'); // the table's name stays in the log
    expect(logs.errors().map((line) => line.message)).toStrictEqual([cause.message]);
    expect(String(logs.errors()[0]?.message)).toContain('run npm run data:migrate');
    expect(logs.errors()[0]).toHaveProperty('awsRequestId', contextFor(event).awsRequestId);
  });

  it('is an error named for what it is', () => {
    expect(new BookStoreNotReadyError('x').name).toBe('BookStoreNotReadyError');
  });
});

describe('the steps a phase of npm run data:migrate runs', () => {
  const step = (version: number, phase: MigrationStep['phase']): MigrationStep => ({
    version,
    name: `step${version}`,
    phase,
    summary: '',
    run: async () => undefined,
  });
  const due = [step(2, 'before'), step(3, 'after'), step(4, 'before')];
  const names = (steps: MigrationStep[]) => steps.map(({ name }) => name);

  it("before: the due steps up to the first 'after' one, which waits for the deploy with those behind it", () => {
    expect(names(stepsToRun(due, 1, 'before'))).toStrictEqual(['step2']);
  });

  it('after, or no phase: every due step in order', () => {
    expect(names(stepsToRun(due, 1, 'after'))).toStrictEqual(['step2', 'step3', 'step4']);
    expect(names(stepsToRun(due, 1))).toStrictEqual(['step2', 'step3', 'step4']);
  });

  it('a table never stamped (no release serves it) gets every step, whatever the phase', () => {
    expect(names(stepsToRun(due, 0, 'before'))).toStrictEqual(['step2', 'step3', 'step4']);
  });
});
