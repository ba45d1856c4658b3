import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importsOf, PROJECT_ROOT, sourceFiles } from '../support/source-files';

/**
 * The dependency rule of docs/architecture.md ("Dependency rule"), checked on every import of the
 * product's code, type-only imports included. A unit is a folder of shared/ (shared/books), the
 * configuration module (shared/config.ts), or a top-level folder (functions, infra, ...). A unit may
 * import itself and what its row allows: a unit, or one file of a unit. Tests are not held to it.
 */
const SHARED = [
  'shared/api',
  'shared/books',
  'shared/auth',
  'shared/config',
  'shared/observability',
  'shared/store',
  'shared/http',
  'shared/openapi',
];

const ALLOWED: Record<string, readonly string[]> = {
  // The contract and the two domains import nothing of the project: they own their ports.
  'shared/api': [],
  'shared/books': [],
  'shared/auth': [],
  // Configuration parses the Digest offer with the auth domain's own parser.
  'shared/config': ['shared/auth', 'shared/books'],
  'shared/observability': ['shared/config'],
  // Adapters depend on the domains whose ports they implement.
  'shared/store': ['shared/books', 'shared/auth', 'shared/config'],
  // The HTTP envelope maps the domain's and the store's named errors to statuses.
  'shared/http': ['shared/api', 'shared/books', 'shared/store/errors.ts', 'shared/observability', 'shared/config'],
  'shared/openapi': ['shared/api', 'shared/books', 'shared/auth', 'shared/http', 'shared/config'],
  // The Lambda entry points and their composition roots build on shared/ and nothing else.
  functions: SHARED,
  // The deployment builds on shared/; it names handler files only as strings of the route table.
  infra: SHARED,
  // Code shared by the operator-side programs, never bundled into a function.
  admin: SHARED,
  local: [...SHARED, 'admin'],
  tools: [...SHARED, 'admin', 'local'],
  // The bench builds the stack's bundles and drives the local gateway; it never imports a handler.
  bench: [...SHARED, 'admin', 'local', 'infra', 'tools'],
};

/** The unit a file belongs to, or undefined for a file outside every unit (a test, a new folder). */
const unitOf = (file: string): string | undefined => {
  const parts = file.split('/');
  if (parts[0] === 'shared') {
    const unit = parts.length > 2 ? `shared/${parts[1]}` : `shared/${(parts[1] ?? '').replace(/\.ts$/, '')}`;
    return unit in ALLOWED ? unit : undefined;
  }
  return parts[0] !== undefined && parts[0] in ALLOWED ? parts[0] : undefined;
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
      specifier: '../store/dynamodb-book-store',
      to: 'shared/store/dynamodb-book-store.ts',
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
