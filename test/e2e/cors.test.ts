import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../shared/http/cors';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * CORS with two configured origins, through the local server (the functions read
 * CORS_ALLOWED_ORIGINS as on Lambda; the server's own answers stand for the gateway's).
 */
const APP = 'http://127.0.0.1:5173';
const OTHER_APP = 'https://books.example';
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi({ env: { CORS_ALLOWED_ORIGINS: `${APP}, ${OTHER_APP}` } });
});
afterAll(() => api.close());

const send = (method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((done, fail) => {
    const req = request(`${api.baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', fail);
    req.end();
  });

const corsFields = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('a preflight', () => {
  it('from a listed origin is answered without credentials, with the methods and headers its request may use', async () => {
    const response = await send('OPTIONS', '/api/books/7', {
      origin: APP,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization, content-type, if-match',
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(response.headers['access-control-allow-headers']).toBe(CORS_ALLOWED_HEADERS.join(', '));
    expect(response.headers.vary).toBe('Origin');
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('from an unlisted origin gets no CORS field (the browser then refuses the request)', async () => {
    const response = await send('OPTIONS', '/api/books', {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    });
    expect(response.status).toBe(204);
    expect(corsFields(response.headers)).toEqual([]);
    expect(response.headers.vary).toBe('Origin');
  });
});

describe('an actual response', () => {
  it('names a listed origin exactly (never *), allows credentials and exposes the challenge, tags and links', async () => {
    for (const origin of [APP, OTHER_APP]) {
      const listed = await send('GET', '/api/books', { origin, authorization: BASIC_DEMO });
      expect(listed.status).toBe(200);
      expect(listed.headers['access-control-allow-origin']).toBe(origin);
      expect(listed.headers['access-control-allow-credentials']).toBe('true');
      expect(listed.headers['access-control-expose-headers']).toBe(CORS_EXPOSED_HEADERS.join(', '));
      expect(listed.headers.vary).toBe('Origin');
    }
  });

  it('carries them on the 401 (so a browser app can read WWW-Authenticate), the 404 and the 405', async () => {
    const challenged = await send('GET', '/api/books', { origin: APP });
    expect(challenged.status).toBe(401);
    expect(challenged.headers['access-control-allow-origin']).toBe(APP);
    expect(challenged.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
    for (const [method, path, status] of [
      ['GET', '/api/nothing', 404],
      ['DELETE', '/api/books', 405],
    ] as const) {
      const response = await send(method, path, { origin: APP });
      expect(response.status).toBe(status);
      expect(response.headers['access-control-allow-origin']).toBe(APP);
    }
  });

  it('for an unlisted origin, or none, carries no CORS field but still Vary: Origin', async () => {
    for (const headers of [{ origin: 'https://evil.example' }, { origin: `${APP}/` }, {}] as Record<string, string>[]) {
      const response = await send('GET', '/api/books', { ...headers, authorization: BASIC_DEMO });
      expect(response.status).toBe(200);
      expect(corsFields(response.headers)).toEqual([]);
      expect(response.headers.vary).toBe('Origin');
    }
    const challenged = await send('GET', '/api/books', { origin: 'https://evil.example' });
    expect(corsFields(challenged.headers)).toEqual([]);
  });
});
