import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importsOf, PROJECT_ROOT, sourceFiles } from '../support/source-files';

/**
 * The dependency rule of docs/architecture.md ("Dependency rule"), checked on every import of the
 * product's code, type-only imports included. The units (a folder of shared/, each aggregate's
 * folder in shared/store, a top-level folder, tools/http-auth) stand in layers, lowest first; a
 * file belongs to the deepest unit that holds it, and may import its own unit and any unit of a
 * lower layer, nothing of its own layer or above. So a new import across layers fails without
 * anyone editing this list; only a new folder joins it. Tests are not held to it.
 */
const LAYERS: readonly (readonly string[])[] = [
  // The domains own their ports; the tools' HTTP authentication client imports nothing of the
  // service's own, so a mistake of the server's code cannot hide in the client that checks it.
  ['shared/books', 'shared/auth', 'tools/http-auth'],
  // The route table, and the configuration that reads the domains' rules.
  ['shared/api', 'shared/config'],
  // The DynamoDB plumbing both aggregates use; logs and metrics.
  ['shared/store', 'shared/observability'],
  // Each aggregate's adapters (never each other), and the HTTP envelope.
  ['shared/store/books', 'shared/store/auth', 'shared/http'],
  // A stream record becomes a change event: the book store's item layout says which items are books.
  ['shared/events'],
  // The OpenAPI and AsyncAPI documents (the latter names the change events' types).
  ['shared/openapi'],
  // The Lambda entry points, the deployment (it names handler files only as strings of the route
  // table) and the operators' code; none imports another.
  ['functions', 'infra', 'ops'],
  ['local'],
  ['tools'],
  // The bench builds the stack's bundles and drives the local gateway.
  ['bench'],
];
const LAYER_OF = new Map(LAYERS.flatMap((units, layer) => units.map((unit) => [unit, layer] as const)));

/** The deepest unit that holds a file, or undefined for a file outside every unit (a test, a new folder). */
const unitOf = (file: string): string | undefined => {
  const parts = file.replace(/\.ts$/, '').split('/');
  for (let depth = parts.length; depth > 0; depth--) {
    const unit = parts.slice(0, depth).join('/');
    if (LAYER_OF.has(unit)) return unit;
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
  if (from === undefined) return `${edge.from} is in no unit of the rule: add its folder to a layer of LAYERS`;
  if (to === undefined) return `${where}: ${edge.to} is in no unit of the rule`;
  if (from === to) return undefined;
  return (LAYER_OF.get(to) as number) < (LAYER_OF.get(from) as number)
    ? undefined
    : `${where}: ${from} may not import ${to} (a layer not below its own)`;
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
      "shared/store/example.ts:4 imports '../http/errors': shared/store may not import shared/http (a layer not below its own)",
      "shared/store/example.ts:5 imports '../../functions/books/wiring': shared/store may not import functions (a layer not below its own)",
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

  it('puts every unit in exactly one layer, and every folder of shared/ and the root that holds source in a unit', () => {
    const units = LAYERS.flat();
    expect(new Set(units).size).toBe(units.length);
    const folders = new Set(
      sourceFiles().map((file) =>
        file
          .replace(/\.ts$/, '')
          .split('/')
          .slice(0, file.startsWith('shared/') ? 2 : 1)
          .join('/'),
      ),
    );
    expect([...folders].filter((folder) => !LAYER_OF.has(folder))).toEqual([]);
    // A new top-level folder of source is read too (only tests stand outside the rule).
    const topFolders = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file.includes('/'))
      .map((file) => file.split('/')[0] as string);
    expect(
      [...new Set(topFolders)].filter((folder) => !['test', 'shared'].includes(folder) && !LAYER_OF.has(folder)),
    ).toEqual([]);
  });

  it('refuses a new import across layers with no table to edit: upwards, and sideways within a layer', () => {
    const edge = (from: string, to: string) => violation({ from, specifier: to, to, typeOnly: true, line: 1 });
    expect(edge('shared/books/book-service.ts', 'shared/http/responses.ts')).toContain(
      'shared/books may not import shared/http',
    );
    expect(edge('shared/config.ts', 'shared/api/routes.ts')).toContain('shared/config may not import shared/api');
    expect(edge('infra/app.ts', 'functions/books/wiring.ts')).toContain('infra may not import functions');
    expect(edge('shared/http/responses.ts', 'shared/store/tables.ts')).toBeUndefined();
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
