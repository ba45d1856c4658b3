import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { PROJECT_ROOT, sourceFiles } from '../support/source-files';

/**
 * The HTTP status codes README.md, CONTRIBUTING.md and docs/ give as answers (in bold, in the
 * contract's route table, after "status") against the ones the code can send: the OpenAPI
 * document's answers and every status the source writes (`statusCode: 413`, `status: 503`,
 * `empty(404)`). A page that promises a status no code sends fails here.
 */
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => `docs/${file}`),
].filter((file) => file.endsWith('.md') && existsSync(join(PROJECT_ROOT, file)));

/** Status codes a page gives as answers. */
const statusesNamed = (text: string): number[] => {
  const bold = [...text.matchAll(/\*\*([1-5]\d\d)\*\*/g)];
  const afterStatus = [...text.matchAll(/\bstatus(?:es)?:? ([1-5]\d\d)\b/gi)];
  const routeTable = text
    .split('\n')
    .filter((line) => /^\| `(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)[ ,`]/.test(line))
    .flatMap((line) => [
      ...(line
        .split('|')
        .slice(2)
        .join('|')
        .matchAll(/(?<![\w.-])([1-5]\d\d)(?![\w.-])/g) ?? []),
    ]);
  return [...bold, ...afterStatus, ...routeTable].map((match) => Number(match[1]));
};

/** Status codes the code can send. */
const SENT = new Set<number>([
  ...[false, true].flatMap((publicReads) =>
    Object.values(buildOpenApiDocument({ publicReads }).paths).flatMap((path) =>
      Object.values(path as Record<string, { responses?: Record<string, unknown> }>).flatMap((operation) =>
        Object.keys(operation.responses ?? {}).map(Number),
      ),
    ),
  ),
  ...sourceFiles(['shared', 'functions', 'local', 'infra']).flatMap((file) =>
    [
      ...readFileSync(join(PROJECT_ROOT, file), 'utf8').matchAll(
        /\b(?:statusCode|status|StatusCode|empty|statusCodes?)\W{1,4}([1-5]\d\d)\b/g,
      ),
    ].map((match) => Number(match[1])),
  ),
]);

describe('the status codes README.md, CONTRIBUTING.md and docs/ give', () => {
  it('are each one the code sends', () => {
    const named = DOCS.flatMap((doc) =>
      statusesNamed(readFileSync(join(PROJECT_ROOT, doc), 'utf8')).map((code) => ({ doc, code })),
    );
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter(({ code }) => !SENT.has(code))).toEqual([]);
  });

  it('are found where a page writes them, and a made-up one is caught', () => {
    expect(statusesNamed('answers **418** or status 299;\n| `GET /x` | 200, ok | 404, 451 |')).toEqual([
      418, 299, 200, 404, 451,
    ]);
    expect(SENT.has(418)).toBe(false);
    expect(SENT.has(301)).toBe(true);
  });
});
