import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stackOptionsFromContext } from '../../infra/context';
import { ROUTES } from '../../shared/api/routes';
import { ENV } from '../../shared/config';
import { PROJECT_ROOT, parseSource, SOURCE_FOLDERS, sourceFiles } from '../support/source-files';

/**
 * The names the README and docs/ give a reader (environment variables, npm scripts, routes, CDK
 * options) against the code that defines them, both ways: a name the docs give exists, and a name
 * the code has is given somewhere. Every list is read from the code, never written here, so a new
 * variable, script, route or option fails this test until a page names it, and the failure says
 * which name and where it would go.
 */
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => `docs/${file}`),
].filter((file) => file.endsWith('.md') && existsSync(join(PROJECT_ROOT, file)));
const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');
const PAGES = DOCS.map((doc) => ({ doc, text: read(doc) }));
const ALL_TEXT = PAGES.map(({ text }) => text).join('\n');

/** `text` without its fenced code blocks. */
const prose = (text: string) => text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
const codeSpans = (text: string) => [...prose(text).matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string);
/** `name` as a word of `text` (not part of a longer name). */
const namesWord = (text: string, name: string) =>
  new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text);

// ---- Environment variables ----

const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/**
 * The variables a file reads by name: `env.NAME`, `env['NAME']`, `process.env.NAME` and
 * `env[ENV.key]` (shared/config.ts's names), where `env` is any expression ending in `env`.
 */
const environmentReads = (file: string, text?: string): string[] => {
  const found: string[] = [];
  const source = parseSource(file, text);
  // Names held in a constant of the file: `const PASSWORD_VARIABLE = 'VERIFY_PASSWORD'`, then `env[PASSWORD_VARIABLE]`.
  const constants = new Map<string, string>();
  const collect = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      if (ts.isStringLiteralLike(node.initializer)) constants.set(node.name.text, node.initializer.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);
  const isEnv = (node: ts.Expression) =>
    (ts.isIdentifier(node) && node.text === 'env') || (ts.isPropertyAccessExpression(node) && node.name.text === 'env');
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isEnv(node.expression) && /^[A-Z]/.test(node.name.text)) {
      found.push(node.name.text);
    } else if (ts.isElementAccessExpression(node) && isEnv(node.expression)) {
      const key = node.argumentExpression;
      if (ts.isStringLiteralLike(key)) found.push(key.text);
      else if (ts.isIdentifier(key) && constants.has(key.text)) found.push(constants.get(key.text) as string);
      else if (ts.isPropertyAccessExpression(key) && ts.isIdentifier(key.expression) && key.expression.text === 'ENV') {
        found.push(ENV[key.name.text as keyof typeof ENV]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((name) => name !== undefined && /^[A-Z][A-Z0-9_]*$/.test(name));
};

/** What the runtime reads (shared/config.ts's table) and what `npm start` and the tools read themselves. */
const VARIABLES_THE_CODE_READS = [
  ...new Set([
    ...Object.values(ENV),
    ...sourceFiles(['local', 'tools', 'ops']).flatMap((file) => environmentReads(file)),
  ]),
].sort();

/** Variables the pages name that belong to other software: each says whose it is. */
const OUTSIDE_VARIABLES = new Set([
  'AWS_PROFILE', // the AWS CLI's and SDK's profile
  'AWS_ENDPOINT_URL', // the AWS SDK's own endpoint override
  'NODE_OPTIONS', // Node.js
  'POWERTOOLS_LOGGER_LOG_EVENT', // Powertools' logger
  'PATH', // the shell's
]);

/**
 * Every word of the repository's TypeScript that could be a constant's name (identifiers and string
 * literals), so that a page may name `LIST_MERGE_BUDGET_BYTES` or the gateway's `ACCESS_DENIED`.
 */
const CODE_WORDS = (() => {
  const words = new Set<string>();
  // This file is left out: its examples name what exists nowhere.
  for (const file of sourceFiles([...SOURCE_FOLDERS, 'test']).filter((f) => f !== 'test/static/docs-names.test.ts')) {
    const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, read(file));
    for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
      if (token === ts.SyntaxKind.Identifier || token === ts.SyntaxKind.StringLiteral) {
        const value = scanner.getTokenValue();
        if (ENV_NAME.test(value)) words.add(value);
      }
    }
  }
  return words;
})();

/** Variables the tests and test scripts read (`FUZZ_SEED`, `SCHEMATHESIS_MAX_EXAMPLES`). */
const TEST_VARIABLES = new Set([
  ...sourceFiles(['test']).flatMap((file) => environmentReads(file)),
  ...readdirSync(join(PROJECT_ROOT, 'test/tools'))
    .filter((file) => file.endsWith('.sh'))
    .flatMap((file) => [...read(`test/tools/${file}`).matchAll(/\$\{?([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string)),
]);

/**
 * The variables a page names: `NAME=value` anywhere (code blocks included), `$NAME` in code, and
 * each code span of an upper-case name with an underscore that is no constant of the code.
 */
const namedVariables = (text: string): string[] => [
  ...[...text.matchAll(/(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)].map((match) => match[1] as string),
  ...[...text.matchAll(/\$\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)/g)].map((match) => match[1] as string),
  ...codeSpans(text).filter((span) => ENV_NAME.test(span) && !CODE_WORDS.has(span)),
];

const isKnownVariable = (name: string) =>
  VARIABLES_THE_CODE_READS.includes(name) || TEST_VARIABLES.has(name) || OUTSIDE_VARIABLES.has(name);

// ---- npm scripts ----

const SCRIPTS = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
/** The first words of package.json's `family:name` scripts (`test`, `check`, ...). */
const SCRIPT_FAMILIES = new Set(SCRIPTS.filter((s) => s.includes(':')).map((s) => s.split(':')[0] as string));

/** `npm run [--silent] name`, `npm start`, `npm test`, and code spans that read as a script of a family (`test:e2e`). */
const namedScripts = (text: string): string[] => [
  ...[...text.matchAll(/npm run (?:--silent |-s )?([a-z][\w:-]*[\w-])/g)].map((match) => match[1] as string),
  ...[...text.matchAll(/npm (start|test)\b/g)].map((match) => match[1] as string),
  ...codeSpans(text).filter(
    (span) => /^[a-z]+(?::[a-z][\w-]*)+$/.test(span) && SCRIPT_FAMILIES.has(span.split(':')[0] as string),
  ),
];

/**
 * The scripts CONTRIBUTING.md's "Every npm script" table gives, one per row, in its order: the first
 * code span of each row's second cell, without `npm run ` and any ` -- <arguments>`.
 */
const scriptTable = (text: string): string[] => {
  const section = text.split(/^## /m).find((part) => part.startsWith('Every npm script')) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => /`npm (?:run )?([a-z][\w:-]*)/.exec(line.split('|')[2] ?? '')?.[1])
    .filter((name): name is string => name !== undefined);
};

/** A script's group: its name up to the first colon (`test:e2e` and `test` are both `test`). */
const familyOf = (script: string) => script.split(':')[0] as string;

/** Whether each group's scripts stand together, in one run of the list. */
const groupedTogether = (scripts: string[]) =>
  scripts.every(
    (script, i) =>
      i === 0 ||
      familyOf(scripts[i - 1] as string) === familyOf(script) ||
      !scripts.slice(0, i).some((s) => familyOf(s) === familyOf(script)),
  );

/**
 * The files outside the docs that tell a reader to run a script: the CLI tools' help and errors, the
 * test and config comments, the CI script. Left out: the tests of the readers, whose examples are
 * made up (`npm run example`).
 */
const SCRIPT_NAMING_FILES = [
  ...sourceFiles([...SOURCE_FOLDERS, 'test']).filter(
    (file) => !['test/static/docs-names.test.ts', 'test/static/docs.test.ts', 'test/unit/cli.test.ts'].includes(file),
  ),
  ...readdirSync(join(PROJECT_ROOT, 'test/tools'))
    .filter((file) => file.endsWith('.sh'))
    .map((file) => `test/tools/${file}`),
  '.ci/run',
  'vitest.config.ts',
  'vitest.sam.config.ts',
  'vitest.toolchains.config.ts',
  'stryker.config.mjs',
];

// ---- Routes ----

/** The API paths a page names, without query or fragment: `/api/books/{id}`, `/api/books/1`, `/api/docs/<file>`. */
const namedPaths = (text: string): string[] =>
  [...text.matchAll(/(?<![\w./-])(?:https?:\/\/[\w.:[\]-]+)?(\/api(?:\/(?:<[\w-]+>|[^\s`'"?#)<>|,;/])*)*)/g)]
    .map((match) => (match[1] as string).replace(/[.:*]+$/, ''))
    .filter((path) => path !== '');

/** Whether a route's path takes `path`: a `{param}` takes any segment; `{x}`, `<x>` or `…` in `path` takes a `{param}`. */
const routeTakes = (routePath: string, path: string) => {
  const want = routePath.split('/');
  const given = path.replace(/\/$/, '').split('/');
  return (
    want.length === given.length &&
    want.every((segment, i) => {
      const other = given[i] as string;
      if (segment.startsWith('{')) return other !== '';
      return segment === other;
    })
  );
};
const isKnownPath = (path: string) =>
  ROUTES.some((route) => routeTakes(route.path, path)) ||
  // A prefix such as `/api` or `/api/`: the start of the routes' paths.
  ROUTES.some((route) => route.path.startsWith(path) && (path.endsWith('/') || route.path[path.length] === '/'));

// ---- CDK options ----

/** The names infra/context.ts asks for. */
const OPTIONS_THE_STACK_READS = (() => {
  const names = new Set<string>();
  stackOptionsFromContext((name) => {
    names.add(name);
    return undefined;
  });
  return [...names].sort();
})();

/** `-c name=value` and `-c name` as a page writes them (`-c name=value` itself is the placeholder). */
const namedOptions = (text: string): string[] =>
  [...text.matchAll(/(?<![\w-])-c\s+([A-Za-z][\w]*)(?==|\b)/g)]
    .map((match) => match[1] as string)
    .filter((name) => name !== 'name');

const unknownIn = (find: (text: string) => string[], known: (name: string) => boolean) =>
  PAGES.flatMap(({ doc, text }) => [...new Set(find(text))].filter((name) => !known(name)).map((n) => `${doc}: ${n}`));

describe('the names README.md and docs/ give', () => {
  it('environment variables: each one named is read by the code (or is named as another program’s)', () => {
    expect(unknownIn(namedVariables, isKnownVariable)).toEqual([]);
  });

  it('environment variables: each one shared/config.ts, npm start or a tool reads is named somewhere', () => {
    expect(VARIABLES_THE_CODE_READS).toContain('BOOKS_TABLE_NAME');
    expect(VARIABLES_THE_CODE_READS).toContain('LOCAL_USERS');
    expect(VARIABLES_THE_CODE_READS.filter((name) => !namesWord(ALL_TEXT, name))).toEqual([]);
  });

  it('npm scripts: each one named is in package.json', () => {
    expect(unknownIn(namedScripts, (name) => SCRIPTS.includes(name))).toEqual([]);
  });

  it('npm scripts: each one in package.json is named somewhere', () => {
    const named = new Set(PAGES.flatMap(({ text }) => namedScripts(text)));
    expect(SCRIPTS.filter((script) => !named.has(script))).toEqual([]);
  });

  it('npm scripts: each one the tools, tests, configs and .ci/run name is in package.json', () => {
    const unknown = SCRIPT_NAMING_FILES.flatMap((file) =>
      [...new Set(namedScripts(read(file)))].filter((name) => !SCRIPTS.includes(name)).map((n) => `${file}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('npm scripts: package.json keeps each group together', () => {
    expect(groupedTogether(SCRIPTS)).toBe(true);
  });

  it('npm scripts: CONTRIBUTING.md’s table has one row per script, in package.json’s order', () => {
    expect(scriptTable(read('CONTRIBUTING.md'))).toEqual(SCRIPTS);
  });

  it('routes: each API path named is one of the route table’s', () => {
    expect(unknownIn(namedPaths, isKnownPath)).toEqual([]);
  });

  it('routes: contract.md names each route of the route table, method and path', () => {
    const contract = read('docs/contract.md');
    const missing = ROUTES.map((route) => `${route.method} ${route.path}`).filter((route) => !contract.includes(route));
    expect(missing).toEqual([]);
  });

  it('CDK options: each `-c name` named is one the stack reads', () => {
    expect(unknownIn(namedOptions, (name) => OPTIONS_THE_STACK_READS.includes(name))).toEqual([]);
  });

  it('CDK options: each one the stack reads is named somewhere', () => {
    expect(OPTIONS_THE_STACK_READS).toContain('throttleRate');
    expect(OPTIONS_THE_STACK_READS.filter((name) => !namesWord(ALL_TEXT, `\`${name}\``))).toEqual([]);
  });
});

describe('the readers above', () => {
  it('find the names where a page writes them', () => {
    const page = [
      'Set `PUBLIC_READ` (not `LIST_MERGE_BUDGET_BYTES`, a constant), or run `npm run test:unit`, `test:e2e`, `npm start`.',
      '```sh',
      'VERIFY_PASSWORD="$PW" npm run verify:deployment -- $BASE_URL',
      'npx cdk deploy -c stage=prod -c name=value -c tracing',
      'curl http://127.0.0.1:3000/api/books/1?x=1 /api/docs/<file> shared/api/routes.ts',
      '```',
    ].join('\n');
    expect(namedVariables(page).sort()).toEqual(['BASE_URL', 'PUBLIC_READ', 'VERIFY_PASSWORD']);
    expect(namedScripts(page).sort()).toEqual(['start', 'test:e2e', 'test:unit', 'verify:deployment']);
    expect(namedScripts('Log in as `demo:demo`; a `name:password` pair.')).toEqual([]);
    expect(namedPaths(page)).toEqual(['/api/books/1', '/api/docs/<file>']);
    expect(namedOptions(page)).toEqual(['stage', 'tracing']);
    const reads =
      "const V = 'VERIFY_PASSWORD';\nconst a = env.PORT, b = process.env['DEBUG'], c = env[ENV.realm], d = env[V];";
    expect(environmentReads('local/example.ts', reads)).toEqual(['PORT', 'DEBUG', 'AUTH_REALM', 'VERIFY_PASSWORD']);
  });

  it('tell a route path from one that is not', () => {
    expect(isKnownPath('/api/books/{id}')).toBe(true);
    expect(isKnownPath('/api/books/42')).toBe(true);
    expect(isKnownPath('/api/docs/<file>')).toBe(true);
    expect(isKnownPath('/api')).toBe(true);
    expect(isKnownPath('/api/book')).toBe(false);
    expect(isKnownPath('/api/books/1/covers')).toBe(false);
    expect(isKnownPath('/ap')).toBe(false);
  });

  it('take nothing unknown as known', () => {
    expect(isKnownVariable('NO_SUCH_VARIABLE')).toBe(false);
    expect(isKnownVariable('AUTH_REALM')).toBe(true);
    expect(SCRIPTS).not.toContain('test:nothing');
    expect(groupedTogether(['start', 'test', 'test:e2e', 'lint', 'lint:fix', 'data:check'])).toBe(true);
    expect(groupedTogether(['test', 'lint', 'test:e2e'])).toBe(false);
    const table =
      '## Every npm script\n\n| group | script | what |\n| --- | --- | --- |\n| Run | `npm start` | x |\n| Deploy | `npm run cdk -- <command>` | y |\n\n## Next\n| a | `npm run lint` | z |\n';
    expect(scriptTable(table)).toEqual(['start', 'cdk']);
    expect(OPTIONS_THE_STACK_READS).not.toContain('throtleRate');
  });
});
