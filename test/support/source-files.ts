import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/** The product's source folders (tests, generated and third-party code left out). */
export const SOURCE_FOLDERS = ['functions', 'shared', 'infra', 'local', 'tools', 'bench', 'ops'] as const;

/** Every .ts file under the given folders, as paths from the project root with forward slashes. */
export const sourceFiles = (folders: readonly string[] = SOURCE_FOLDERS): string[] => {
  const walk = (folder: string): string[] =>
    readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  return folders.flatMap(walk).sort();
};

/** A file's syntax tree; `text` stands in for the file's own content (to test the readers on examples). */
export const parseSource = (file: string, text = readFileSync(join(PROJECT_ROOT, file), 'utf8')): ts.SourceFile =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

export interface ImportEdge {
  from: string;
  /** The module as written. */
  specifier: string;
  /** The imported file from the project root, when the specifier is relative; undefined for packages. */
  to: string | undefined;
  typeOnly: boolean;
  line: number;
}

const resolveRelative = (from: string, specifier: string): string => {
  const base = relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(from), specifier))
    .split('\\')
    .join('/');
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) {
    try {
      if (statSync(join(PROJECT_ROOT, candidate)).isFile()) return candidate;
    } catch {
      // try the next form
    }
  }
  return base; // unresolved: the caller reports it
};

/**
 * Every module a file names: import and export declarations (type-only ones included), `import x =
 * require()`, `import()` and `require()` with a literal specifier, and `import('…')` types.
 */
export const importsOf = (file: string, text?: string): ImportEdge[] => {
  const source = parseSource(file, text);
  const edges: ImportEdge[] = [];
  const add = (node: ts.Node, specifier: string, typeOnly: boolean) =>
    edges.push({
      from: file,
      specifier,
      to: specifier.startsWith('.') ? resolveRelative(file, specifier) : undefined,
      typeOnly,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node, node.arguments[0].text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
};
