import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// A streaming handler calls the runtime's awslambda global as it loads, as on Lambda.
import '../../local/streaming-response';
import { AUTHORIZER, ROUTES, type RouteDefinition } from '../../shared/api/routes';
import { PROJECT_ROOT } from '../support/source-files';

/**
 * The route table names each handler by its file (the stack bundles that file, the local server
 * imports it): every entry must be a module under functions/ that exports a `handler` function.
 */
describe('the route table', () => {
  const entries = [
    ...ROUTES.map(({ name, entry }) => ({ name, entry })),
    ...ROUTES.flatMap((route) =>
      'bufferedEntry' in route ? [{ name: `${route.name} (buffered)`, entry: route.bufferedEntry }] : [],
    ),
    AUTHORIZER,
  ];

  it.each(entries)('$name: $entry is a module of functions/ exporting handler', async ({ entry }) => {
    expect(entry).toMatch(/^functions\/[\w-]+\/[\w-]+\.ts$/);
    expect(existsSync(join(PROJECT_ROOT, entry))).toBe(true);
    const module = await import(join(PROJECT_ROOT, entry));
    expect(typeof module.handler).toBe('function');
  });

  it('names a buffered variant only for a streaming route, in a file of its own', () => {
    for (const route of ROUTES as readonly RouteDefinition[]) {
      if (!route.bufferedEntry) continue;
      expect(route.streaming).toBe(true);
      expect(route.bufferedEntry).not.toBe(route.entry);
    }
  });

  it('names a role for every protected route and for no public one', () => {
    for (const route of ROUTES as readonly RouteDefinition[]) {
      expect(route.role !== undefined, route.name).toBe(route.protected);
    }
  });

  it('gives each route its own name, and each method and path one route', () => {
    expect(new Set(ROUTES.map((route) => route.name)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((route) => `${route.method} ${route.path}`)).size).toBe(ROUTES.length);
  });
});
