import { describe, expect, it } from 'vitest';
import { RESOURCE_PATHS, unroutedMethods } from '../../shared/api/routes';
import { unroutedMethodAnswer } from '../../shared/http/unrouted-methods';

/** What the ResourceMethods function answers, from the route table alone. */
const APP = 'https://app.example';

describe('the answer to a method a resource has no route for', () => {
  it('is 204 with Allow to OPTIONS, and a preflight grant only for a listed origin', () => {
    const listed = unroutedMethodAnswer('OPTIONS', '/api/books/{id}', APP, [APP]);
    expect(listed).toMatchObject({ statusCode: 204, body: '' });
    expect(listed.headers).toMatchObject({
      Allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Allow-Methods': 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
    });
    const unlisted = unroutedMethodAnswer('OPTIONS', '/api/books/{id}', 'https://evil.example', [APP]);
    expect(Object.keys(unlisted.headers ?? {}).filter((name) => name.startsWith('Access-Control'))).toEqual([]);
  });

  it('is 405 with Allow and the contract body to any other method', () => {
    const answer = unroutedMethodAnswer('DELETE', '/api/books', undefined, []);
    expect(answer.statusCode).toBe(405);
    expect(answer.headers).toMatchObject({ Allow: 'GET, HEAD, POST, OPTIONS', 'Content-Type': 'application/json' });
    expect(JSON.parse(answer.body)).toMatchObject({ status: 405 });
  });

  it('is the gateway’s 404 for a resource the route table does not have', () => {
    expect(unroutedMethodAnswer('OPTIONS', '/api/nothing', undefined, [])).toMatchObject({ statusCode: 404, body: '' });
  });
});

describe('the methods a samLocal template names one by one', () => {
  it('are, per resource, OPTIONS and every method of ANY without a route there', () => {
    expect(unroutedMethods('/api/books')).toEqual(['PUT', 'PATCH', 'DELETE', 'OPTIONS']);
    expect(unroutedMethods('/api/books/{id}')).toEqual(['POST', 'OPTIONS']);
    for (const path of RESOURCE_PATHS) expect(unroutedMethods(path)).not.toContain('GET');
  });
});
