import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ROUTES, requiresAuth } from '../../shared/api/routes';
import { BookStoreNotReadyError } from '../../shared/books/errors';
import { BookQuerySchema } from '../../shared/books/schemas';
import { responseForError } from '../../shared/http/error-responses';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import type { Operation } from '../../shared/openapi/types';

const doc = buildOpenApiDocument({ publicReads: false });
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const operations = (document: ReturnType<typeof buildOpenApiDocument>) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Operation })),
  );

/** Follows a local JSON pointer such as `#/components/schemas/Book`. */
const resolve = (pointer: string): unknown =>
  pointer
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);

const collectRefs = (node: unknown, found: string[] = []): string[] => {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
};

describe('OpenAPI document and route table', () => {
  it('has one operation per route and HEAD per GET route, and nothing the route table lacks', () => {
    const documented = operations(doc).map(({ path, method }) => `${method} ${path}`);
    const routed = [
      ...ROUTES.map((route) => `${route.method} ${route.path}`),
      ...ROUTES.filter((route) => route.method === 'GET').map((route) => `HEAD ${route.path}`),
    ];
    expect(documented.sort()).toEqual(routed.sort());
  });

  it('says that every path answers OPTIONS without credentials, and 405 with Allow for other methods', () => {
    const description = (doc.info as { description: string }).description;
    expect(description).toContain('OPTIONS without credentials');
    expect(description).toContain('405');
  });

  it('names operations after the routes, uniquely', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of ROUTES) expect(ids).toContain(route.name.charAt(0).toLowerCase() + route.name.slice(1));
  });

  it('declares both HTTP schemes and requires one of them exactly where the route needs credentials', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(schemes).toEqual({
      basic: expect.objectContaining({ type: 'http', scheme: 'basic' }),
      digest: expect.objectContaining({ type: 'http', scheme: 'digest' }),
    });
    for (const publicReads of [false, true]) {
      const document = buildOpenApiDocument({ publicReads });
      for (const route of ROUTES) {
        const op = document.paths[route.path]?.[route.method.toLowerCase()] as Operation;
        if (requiresAuth(route, publicReads)) {
          expect(op.security).toEqual([{ basic: [] }, { digest: [] }]);
          expect(op.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
        } else {
          expect(op.security).toEqual([]);
          expect(op.responses['401']).toBeUndefined();
        }
      }
    }
  });

  it('names the role of every guarded operation, and 403 on each that needs more than reader', () => {
    for (const publicReads of [false, true]) {
      const document = buildOpenApiDocument({ publicReads });
      const roles: Record<string, [string, unknown]> = {};
      for (const route of ROUTES) {
        const op = document.paths[route.path]?.[route.method.toLowerCase()] as Operation;
        const role = op['x-required-role'];
        if (role !== undefined) roles[`${route.method} ${route.path}`] = [role, op.responses['403']?.$ref];
      }
      const forbidden = '#/components/responses/Forbidden';
      expect(roles).toEqual({
        ...(!publicReads && {
          'GET /api/books': ['reader', undefined],
          'GET /api/books/{id}': ['reader', undefined],
        }),
        'POST /api/books': ['editor', forbidden],
        'PUT /api/books/{id}': ['editor', forbidden],
        'PATCH /api/books/{id}': ['editor', forbidden],
        'DELETE /api/books/{id}': ['admin', forbidden],
      });
      expect(document.paths['/api/books/{id}']?.delete?.description).toContain('Needs the role admin');
    }
    const forbidden = (doc.components as { responses: Record<string, { content: object }> }).responses.Forbidden;
    expect(forbidden?.content).toMatchObject({
      'application/json': {
        schema: { required: ['timestamp', 'status', 'message'], properties: { status: { const: 403 } } },
      },
    });
  });

  it('documents the 401 challenge header and every error body of the contract', () => {
    const responses = (doc.components as { responses: Record<string, { headers?: object; content?: object }> })
      .responses;
    expect(responses.Unauthorized?.headers).toHaveProperty('WWW-Authenticate');
    const get = (path: string, method: string) => doc.paths[path]?.[method] as Operation;
    expect(Object.keys(get('/api/books', 'post').responses).sort()).toEqual(
      ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503'].sort(),
    );
    for (const method of ['put', 'patch', 'delete']) {
      expect(get('/api/books/{id}', method).responses, method).toMatchObject({
        '412': { $ref: '#/components/responses/PreconditionFailed' },
        '428': { $ref: '#/components/responses/PreconditionRequired' },
      });
      expect(get('/api/books/{id}', method).parameters?.map((p) => p.name)).toContain('If-Match');
    }
    expect(get('/api/books/{id}', 'get').responses['304']).toMatchObject({ headers: { ETag: expect.any(Object) } });
    expect(get('/api/books/{id}', 'get').responses['304']).not.toHaveProperty('content');
    expect(get('/api/books/{id}', 'get').parameters?.map((p) => p.name)).toContain('If-None-Match');
    expect(get('/api/books', 'post').parameters?.map((p) => p.name)).toContain('Idempotency-Key');
    for (const [path, method, status] of [
      ['/api/books/{id}', 'get', '200'],
      ['/api/books/{id}', 'put', '200'],
      ['/api/books/{id}', 'patch', '200'],
      ['/api/books', 'post', '201'],
    ] as const) {
      expect(get(path, method).responses[status]?.headers, `${method} ${status}`).toHaveProperty('ETag');
    }
    expect(get('/api/books', 'get').responses['200']?.headers).not.toHaveProperty('ETag');
    expect(responses.PreconditionFailed?.headers).toHaveProperty('ETag');
    expect(get('/api/books/{id}', 'get').responses['404']).not.toHaveProperty('content');
    expect(get('/api/books', 'post').responses['409']).not.toHaveProperty('content');
    expect(get('/api/books/{id}', 'delete').responses['204']).not.toHaveProperty('content');
    expect(get('/api/books', 'post').responses['201']?.headers).toHaveProperty('Location');
    expect(JSON.stringify(resolve('#/components/responses/InternalError'))).toContain('An unexpected error occurred');
  });

  it('lists one query parameter per field of the valibot query schema, so new fields appear by themselves', () => {
    const list = doc.paths['/api/books']?.get as Operation;
    const names = (list.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual(Object.keys(BookQuerySchema.entries));
  });

  it('takes request bodies from the valibot schemas, with their limits', () => {
    const input = resolve('#/components/schemas/BookInput') as {
      required: string[];
      properties: Record<string, Record<string, unknown>>;
    };
    expect(input.required.sort()).toEqual(['author', 'isbn', 'publicationYear', 'title']);
    expect(input.properties.title).toMatchObject({ type: 'string', maxLength: 500 });
    expect(input.properties.publicationYear).toMatchObject({ type: 'integer', minimum: 1000 });
    const patch = resolve('#/components/schemas/BookPatch') as { required?: string[] };
    expect(patch.required).toBeUndefined();
  });

  it('documents the 503 of a table too old for the code on every book operation, as the code answers it', () => {
    const answer = responseForError(new BookStoreNotReadyError('Table books has schemaVersion 0'));
    const body = JSON.parse(String(answer?.body));
    const ajv = addFormats(new Ajv({ strict: false }));
    for (const publicReads of [false, true]) {
      const books = operations(buildOpenApiDocument({ publicReads })).filter(({ op }) => op.tags.includes('books'));
      expect(books.length).toBeGreaterThanOrEqual(6);
      for (const { path, method, op } of books) {
        const unavailable = op.responses['503'] as {
          headers?: object;
          content?: { 'application/json': { schema: object } };
        };
        expect(unavailable?.headers, `${method} ${path}`).toHaveProperty('Retry-After');
        expect(answer?.headers).toHaveProperty('Retry-After');
        if (method === 'HEAD') continue; // as for GET, without the body
        expect(
          ajv.validate(unavailable.content?.['application/json'].schema ?? false, body),
          `${method} ${path}: ${JSON.stringify(body)}`,
        ).toBe(true);
      }
    }
  });

  it('is structurally sound: version, resolvable $refs, path parameters matching the templates, described responses', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    for (const pointer of collectRefs(doc)) {
      expect(pointer, pointer).toMatch(/^#\//);
      expect(resolve(pointer), pointer).toBeDefined();
    }
    for (const { path, op } of operations(doc)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name)).toEqual(templated);
      expect(declared.every((p) => p.required === true)).toBe(true);
      for (const [status, value] of Object.entries(op.responses)) {
        expect(status).toMatch(/^[1-5]\d\d$/);
        const target = ('$ref' in value ? resolve(value.$ref as string) : value) as { description?: string };
        expect(target.description, `${path} ${status}`).toEqual(expect.any(String));
      }
    }
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc); // plain JSON, nothing lost in serialisation
  });

  it('validates against the official OpenAPI 3.1 JSON Schema, with public reads and without', async () => {
    for (const publicReads of [false, true]) {
      const validator = new Validator();
      const result = await validator.validate(buildOpenApiDocument({ publicReads }) as Record<string, unknown>);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    }
  });

  it('and the validator does reject a broken document', async () => {
    const broken = { ...doc, paths: { '/api/books': { get: { responses: { 200: { content: {} } } } } } };
    expect((await new Validator().validate(broken as Record<string, unknown>)).valid).toBe(false);
  });
});
