import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, digestAuthorization, type Scheme } from '../support/api-client';
import { startFrontProxy } from '../support/front-proxy';
import { startLocalApi } from '../support/local-api';

/**
 * The API behind a front that rewrites the path, as npm start serves it with PUBLIC_BASE_URL set
 * to the front's address. The client signs the path it sends to the front; the gateway sees another.
 */
interface Front {
  name: string;
  /** The front's path before the API's root (publicBaseUrl's path). */
  basePath: string;
  /** The stage npm start serves under (LOCAL_STAGE): the stage URL the front points at. */
  stage?: string;
  rewritePath: (path: string) => string;
}

const FRONTS: Front[] = [
  // CloudFront with origin path /prod to the stage URL: the client signs /api/books, the gateway sees /prod/api/books.
  { name: 'a CloudFront origin path', basePath: '', stage: 'prod', rewritePath: (path) => `/prod${path}` },
  // A custom domain with base path mapping `library`: the client signs /library/api/books, the API's path is /api/books.
  {
    name: 'a custom domain base path mapping',
    basePath: '/library',
    rewritePath: (path) => (path.startsWith('/library/') ? path.slice('/library'.length) : '/unmapped'),
  },
];

describe.each(FRONTS)('behind $name', ({ basePath, stage, rewritePath }) => {
  let api: Awaited<ReturnType<typeof startLocalApi>>;
  let front: Awaited<ReturnType<typeof startFrontProxy>>;
  beforeAll(async () => {
    front = await startFrontProxy(() => api.baseUrl, { rewritePath });
    api = await startLocalApi({ env: { PUBLIC_BASE_URL: `${front.url}${basePath}` }, ...(stage && { stage }) });
  });
  afterAll(async () => {
    await front.close();
    await api.close();
  });

  let isbn = 0;
  const book = () => ({ title: 'Dune', author: 'Frank Herbert', publicationYear: 1965, isbn: `front-${++isbn}` });

  it.each<Scheme>(['basic', 'digest'])('%s: every route answers through the front', async (scheme) => {
    const { call } = apiClient(front.url);
    const books = `${basePath}/api/books`;

    const listed = await call('GET', `${books}?limit=5`, undefined, scheme);
    expect(listed.status, listed.text).toBe(200);

    const created = await call('POST', books, book(), scheme);
    expect(created.status, created.text).toBe(201);
    const location = created.headers.get('location') ?? '';
    expect(location).toBe(`${front.url}${books}/${created.json.id}`);
    const one = new URL(location).pathname;

    const read = await call('GET', one, undefined, scheme);
    expect(read.status, read.text).toBe(200);
    const replaced = await call('PUT', one, { ...book(), title: 'Dune Messiah' }, scheme);
    expect(replaced.status, replaced.text).toBe(200);
    const patched = await call('PATCH', one, { publicationYear: 1969 }, scheme);
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ title: 'Dune Messiah', publicationYear: 1969 });
    const deleted = await call('DELETE', one, undefined, scheme);
    expect(deleted.status, deleted.text).toBe(204);
  });

  it('digest: a uri naming the gateway’s path instead of the client’s is refused', async () => {
    const url = `${front.url}${basePath}/api/books`;
    const challenged = await fetch(url);
    expect(challenged.status).toBe(401);
    const challenge = challenged.headers.get('www-authenticate') ?? '';
    const gatewayPath = rewritePath(`${basePath}/api/books`);
    const refused = await fetch(url, {
      headers: { authorization: digestAuthorization(challenge, 'GET', gatewayPath) },
    });
    expect(refused.status).toBe(401);
  });
});
