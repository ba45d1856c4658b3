import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importsOf, PROJECT_ROOT, sourceFiles } from '../support/source-files';

/**
 * The dependency rule of docs/architecture.md ("Dependency rule"), checked on every import of the
 * product's code, type-only imports included. A unit is a folder of shared/ (shared/books; in
 * shared/store, each aggregate's folder), the configuration module (shared/config.ts), or a
 * top-level folder (functions, infra, ...); a file belongs to the deepest unit that holds it. A unit
 * may import itself and what its row allows, and each row allows only what the code imports: an
 * allowance nothing uses fails too, so the table says what the code does. Tests are not held to it.
 */
/** The DynamoDB plumbing (shared/store) and the adapters of each aggregate on it. */
const STORE = ['shared/store', 'shared/store/books', 'shared/store/auth'];

const ALLOWED: Record<string, readonly string[]> = {
  // The two domains import nothing of the project: they own their ports. The contract names the
  // role each route needs, a type of the auth domain, and its use of the book store.
  'shared/api': ['shared/auth', 'shared/books'],
  'shared/books': [],
  'shared/auth': [],
  // Configuration parses the Digest offer, the lockout policy and the list cap with the domains' own rules.
  'shared/config': ['shared/auth', 'shared/books'],
  'shared/observability': ['shared/config'],
  // The client (configured), errors, retry and table definitions both aggregates use; it re-exports
  // ConcurrentUpdateError, which the book store's port declares.
  'shared/store': ['shared/books', 'shared/config'],
  // Each aggregate's adapters depend on the domain whose ports they implement and on the plumbing,
  // never on each other.
  'shared/store/books': ['shared/books', 'shared/store'],
  'shared/store/auth': ['shared/auth', 'shared/store'],
  // The HTTP envelope maps the domain's named errors to statuses.
  // It refuses a user whose role is short (the auth domain's order of roles).
  'shared/http': ['shared/api', 'shared/auth', 'shared/books', 'shared/observability', 'shared/config'],
  // The AsyncAPI document names the change events' types.
  'shared/openapi': ['shared/api', 'shared/books', 'shared/events', 'shared/http'],
  // A stream record becomes a change event: the store's item layout says which items are books.
  'shared/events': ['shared/books', 'shared/config', 'shared/store/books'],
  // The Lambda entry points and their composition roots build on shared/ and nothing else.
  functions: [
    'shared/auth',
    'shared/books',
    'shared/config',
    'shared/events',
    'shared/http',
    'shared/observability',
    'shared/openapi',
    ...STORE,
  ],
  // The deployment builds on shared/; it names handler files only as strings of the route table.
  infra: ['shared/api', 'shared/auth', 'shared/config', 'shared/http', 'shared/observability', 'shared/store'],
  // Code shared by the operator-side programs, never bundled into a function.
  admin: ['shared/auth', 'shared/books', 'shared/store', 'shared/store/books'],
  local: [
    'shared/api',
    'shared/auth',
    'shared/config',
    'shared/events',
    'shared/http',
    'shared/store',
    'shared/store/auth',
    'admin',
  ],
  // The HTTP authentication client of the tools, the bench and the tests: nothing of the service's
  // own, so that a mistake the server's code makes cannot hide in the client that checks it.
  'tools/http-auth': [],
  tools: ['shared/auth', 'shared/config', ...STORE, 'admin', 'local', 'tools/http-auth'],
  // The bench builds the stack's bundles and drives the local gateway; it never imports a handler.
  bench: [
    'shared/api',
    'shared/auth',
    'shared/books',
    'shared/config',
    'shared/events',
    'shared/http',
    ...STORE,
    'admin',
    'local',
    'infra',
    'tools',
    'tools/http-auth',
  ],
};

/** The deepest unit that holds a file, or undefined for a file outside every unit (a test, a new folder). */
const unitOf = (file: string): string | undefined => {
  const parts = file.replace(/\.ts$/, '').split('/');
  for (let depth = parts.length; depth > 0; depth--) {
    const unit = parts.slice(0, depth).join('/');
    if (unit in ALLOWED) return unit;
  }
  return undefined;
};

/** What is wrong with one import, or undefined when the rule allows it. */
const violation = (edge: ImportEdge): string | undefined => {
  if (edge.to === undefined) return undefined; // a package
  const where = `${edge.from}:${edge.line} imports '${edge.specifier}'${edge.typeOnly ? ' (type only)' : ''}`;
  if (!existsSync(join(PROJECT_ROOT, edge.to))) return `${where}, which is no file of the project`;
  const from = unitOf(edge.from);
  const to = unitOf(edge.to);
  if (from === undefined) return `${edge.from} is in no unit of the rule: add its folder to ALLOWED`;
  if (to === undefined) return `${where}: ${edge.to} is in no unit of the rule`;
  if (from === to) return undefined;
  const allowed = ALLOWED[from] ?? [];
  return allowed.includes(to) || allowed.includes(edge.to) ? undefined : `${where}: ${from} may not import ${to}`;
};

describe('the dependency rule between folders', () => {
  it('holds for every import of the product code, type-only imports included', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => importsOf(file)).flatMap((edge) => violation(edge) ?? []);
    expect(found).toEqual([]);
  });

  it('places every source file in a unit of the rule', () => {
    expect(sourceFiles().filter((file) => unitOf(file) === undefined)).toEqual([]);
  });

  it('reads every kind of import, and reports one against the rule', () => {
    const text = [
      "import type { BookStore } from '../books/ports';",
      "import { type ListOptions } from '../books/ports';",
      "export type { Book } from '../books/types';",
      "export * from '../http/errors';",
      "const later = () => import('../../functions/books/wiring');",
      "type Lazy = typeof import('../logger-that-is-not-there');",
    ].join('\n');
    const edges = importsOf('shared/store/example.ts', text);
    expect(edges.map(({ specifier, typeOnly, to }) => ({ specifier, typeOnly, to }))).toEqual([
      { specifier: '../books/ports', typeOnly: true, to: 'shared/books/ports.ts' },
      { specifier: '../books/ports', typeOnly: false, to: 'shared/books/ports.ts' },
      { specifier: '../books/types', typeOnly: true, to: 'shared/books/types.ts' },
      { specifier: '../http/errors', typeOnly: false, to: 'shared/http/errors.ts' },
      { specifier: '../../functions/books/wiring', typeOnly: false, to: 'functions/books/wiring.ts' },
      { specifier: '../logger-that-is-not-there', typeOnly: true, to: 'shared/logger-that-is-not-there' },
    ]);
    expect(edges.map(violation)).toEqual([
      undefined,
      undefined,
      undefined,
      "shared/store/example.ts:4 imports '../http/errors': shared/store may not import shared/http",
      "shared/store/example.ts:5 imports '../../functions/books/wiring': shared/store may not import functions",
      "shared/store/example.ts:6 imports '../logger-that-is-not-there' (type only), which is no file of the project",
    ]);
  });

  it('keeps the two former back-arrows out: the books domain never reaches the store, observability never HTTP', () => {
    const domainToStore = violation({
      from: 'shared/books/book-service.ts',
      specifier: '../store/books/dynamodb-book-store',
      to: 'shared/store/books/dynamodb-book-store.ts',
      typeOnly: true,
      line: 1,
    });
    const observabilityToHttp = violation({
      from: 'shared/observability/metrics.ts',
      specifier: '../http/types',
      to: 'shared/http/types.ts',
      typeOnly: true,
      line: 1,
    });
    expect(domainToStore).toContain('shared/books may not import shared/store');
    expect(observabilityToHttp).toContain('shared/observability may not import shared/http');
  });

  it('keeps the book and auth adapters apart, and the plumbing beneath both', () => {
    const edge = (from: string, to: string) =>
      violation({ from, specifier: to, to, typeOnly: false, line: 1 }) ?? `${from} may import ${to}`;
    expect(edge('shared/store/books/book-reads.ts', 'shared/store/auth/account-items.ts')).toContain(
      'shared/store/books may not import shared/store/auth',
    );
    expect(edge('shared/store/auth/dynamodb-user-store.ts', 'shared/store/books/book-items.ts')).toContain(
      'shared/store/auth may not import shared/store/books',
    );
    expect(edge('shared/store/retry.ts', 'shared/store/books/book-items.ts')).toContain(
      'shared/store may not import shared/store/books',
    );
    expect(edge('shared/store/books/id-blocks.ts', 'shared/store/named-transactions.ts')).toBe(
      'shared/store/books/id-blocks.ts may import shared/store/named-transactions.ts',
    );
  });

  it('allows no import the code does not make, so the table says what the code does', () => {
    const used = new Set(
      sourceFiles()
        .flatMap((file) => importsOf(file))
        .flatMap((edge) => (edge.to === undefined ? [] : `${unitOf(edge.from)} -> ${unitOf(edge.to)}`)),
    );
    const unused = Object.entries(ALLOWED).flatMap(([from, targets]) =>
      targets.filter((to) => !used.has(`${from} -> ${to}`)).map((to) => `${from} -> ${to}`),
    );
    expect(unused).toEqual([]);
  });

  it('keeps the runtime libraries out of the CDK app: its alarms take metric names, not the metrics module', () => {
    // Every package infra/app.ts reaches through the project's files, type-only imports left out.
    const packages = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const edge of importsOf(file).filter((e) => !e.typeOnly)) {
        if (edge.to === undefined) packages.add(edge.specifier);
        else visit(edge.to);
      }
    };
    visit('infra/app.ts');
    expect(seen).toContain('infra/constructs/alarms.ts');
    expect(seen).toContain('shared/observability/metric-names.ts');
    expect([...packages].filter((name) => /^@aws-lambda-powertools\/|^@middy\//.test(name))).toEqual([]);
  });
});

/** Every cycle among `files` (a depth-first search's back edges), each as its files in order, the first repeated last. */
const importCycles = (files: readonly string[], importsFrom: (file: string) => readonly string[]): string[][] => {
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    path.push(file);
    for (const next of importsFrom(file)) {
      if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of files) if (!done.has(file)) visit(file);
  return cycles;
};

describe('imports between files', () => {
  it('form no cycle, type-only imports included', () => {
    const files = sourceFiles();
    const targets = new Map(files.map((file) => [file, importsOf(file).flatMap((edge) => edge.to ?? [])]));
    expect(importCycles(files, (file) => targets.get(file) ?? [])).toEqual([]);
  });

  it('would report a cycle as its files in order, as tools/verify-deployment once had between types.ts and http.ts', () => {
    const graph: Record<string, string[]> = {
      'types.ts': ['http.ts'],
      'http.ts': ['types.ts', 'expect.ts'],
      'expect.ts': [],
    };
    expect(importCycles(Object.keys(graph), (file) => graph[file] ?? [])).toEqual([
      ['types.ts', 'http.ts', 'types.ts'],
    ]);
  });
});
