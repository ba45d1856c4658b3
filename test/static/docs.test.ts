import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';

/**
 * The README and docs/ as a manual that cannot go stale silently: every file and folder they name
 * exists, every `npm run` script they name is in package.json, every link stays inside the
 * repository and resolves, and no page carries remarks on the machine it was written on.
 */
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => `docs/${file}`),
].filter((file) => file.endsWith('.md'));
const read = (doc: string) => readFileSync(join(PROJECT_ROOT, doc), 'utf8');

/** Every file in the working tree that git tracks or would track (new files included). */
const REPOSITORY_FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: PROJECT_ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const FILE_NAMES = new Set(REPOSITORY_FILES.map((file) => basename(file)));
const TOP_FOLDERS = [...new Set(REPOSITORY_FILES.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))].filter(
  (folder) => !folder?.startsWith('.'),
);

/** Folders that exist only once a command has written them (git-ignored): a path under them is not checked. */
const GENERATED = readFileSync(join(PROJECT_ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => /^\.?[\w.-]+\/$/.test(line))
  .map((line) => line.slice(0, -1));

/** Names that look like paths but are not this repository's: each says where it is. */
const ELSEWHERE = new Set([
  'samcli/local/rapid/aws-lambda-rie-x86_64', // inside the SAM CLI's own package
  'aws/dynamodb', // the alias of DynamoDB's AWS managed KMS key
  'mutation.json', // Stryker writes it under reports/ (git-ignored)
]);

const MEDIA_TYPE = /^(application|text|image|multipart)\/[\w.+-]+$/i;

/** `text` without its fenced code blocks. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** The code spans of the prose that read as a file or folder name: `shared/http`, `races.test.ts`. */
const pathSpans = (text: string): string[] =>
  [...prose(text).matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1] as string)
    .filter(
      (span) =>
        /^[\w.-][\w.*/-]*$/.test(span) &&
        (span.includes('/') || /\.(ts|mjs|js|json|md|sh|http|java|ya?ml)$/.test(span)) &&
        !MEDIA_TYPE.test(span),
    );

/** Anything in the page, code blocks included, that starts with one of the repository's folders. */
const folderPaths = (text: string, folders: string[]): string[] =>
  [...text.matchAll(new RegExp(`(?<![\\w./@$-])((?:${folders.join('|')})/[\\w.*/-]*[\\w/])`, 'g'))].map(
    (match) => match[1] as string,
  );

/** The scripts a page runs: `npm run <script>`, `npm run --silent <script>`. */
const npmScripts = (text: string): string[] =>
  [...text.matchAll(/npm run (?:--silent |-s )?([a-z][\w:-]*[\w-])/g)].map((match) => match[1] as string);

/** The targets of the page's Markdown links and autolinks, in prose. */
const linkTargets = (text: string): string[] => {
  const body = prose(text).replace(/`[^`\n]*`/g, '');
  return [
    ...[...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] as string),
    ...[...body.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1] as string),
    ...[...body.matchAll(/<([a-z][\w+.-]*:[^>\s]+)>/gi)].map((match) => match[1] as string),
  ];
};

/**
 * The anchors a page's headings get, as GitHub makes them: the heading's text (code spans, links and
 * emphasis reduced to their text) in lower case, punctuation dropped, spaces turned into hyphens, and
 * `-1`, `-2`, ... after a repeated one.
 */
const headingAnchors = (text: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = (heading as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
};

/** Where `name`, as a page mentions it, would be: from the repository root or from the page's folder. */
const exists = (doc: string, name: string) => {
  const path = name.replace(/\/$/, '');
  if (ELSEWHERE.has(path) || GENERATED.includes(path.split('/')[0] as string)) return true;
  if (path.includes('*')) {
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return REPOSITORY_FILES.some((file) => pattern.test(file) || pattern.test(basename(file)));
  }
  if (!path.includes('/')) return FILE_NAMES.has(path) || existsSync(join(PROJECT_ROOT, path));
  // A module may be named as it is imported, without its extension: `shared/config`.
  return [PROJECT_ROOT, dirname(join(PROJECT_ROOT, doc))].some(
    (base) => existsSync(resolve(base, path)) || existsSync(resolve(base, `${path}.ts`)),
  );
};

describe('README.md and docs/', () => {
  it('name only files and folders that exist (from the repository root or from the page)', () => {
    const missing = DOCS.flatMap((doc) => {
      const text = read(doc);
      return [...new Set([...pathSpans(text), ...folderPaths(text, TOP_FOLDERS as string[])])]
        .filter((name) => !exists(doc, name))
        .map((name) => `${doc}: ${name}`);
    });
    expect(missing).toEqual([]);
  });

  it('run only npm scripts that package.json defines', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    const unknown = DOCS.flatMap((doc) =>
      npmScripts(read(doc))
        .filter((script) => !scripts.includes(script))
        .map((script) => `${doc}: npm run ${script}`),
    );
    expect(unknown).toEqual([]);
  });

  it('require the Node.js the README names: package.json engines is ">=N" for its "Node.js N or later"', () => {
    const named = /Node\.js (\d+(?:\.\d+)?) or later/.exec(read('README.md'))?.[1];
    expect(named).toBeDefined();
    expect(JSON.parse(read('package.json')).engines.node).toBe(`>=${named}`);
  });

  it('link only inside the repository, to files that exist', () => {
    const broken = DOCS.flatMap((doc) =>
      linkTargets(read(doc))
        .filter((target) => !target.startsWith('#'))
        .filter((target) => {
          if (/^[a-z][\w+.-]*:/i.test(target)) return true; // a scheme: leaves the repository
          const file = resolve(dirname(join(PROJECT_ROOT, doc)), decodeURI(target.replace(/#.*$/, '')));
          return relative(PROJECT_ROOT, file).startsWith('..') || !existsSync(file);
        })
        .map((target) => `${doc}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('link to headings that exist, in the page itself or in the page linked', () => {
    const broken = DOCS.flatMap((doc) =>
      linkTargets(read(doc))
        .filter((target) => target.includes('#') && !/^[a-z][\w+.-]*:/i.test(target))
        .filter((target) => {
          const [path = '', anchor = ''] = target.split('#');
          const page = path === '' ? doc : relative(PROJECT_ROOT, resolve(dirname(join(PROJECT_ROOT, doc)), path));
          if (!page.endsWith('.md') || !existsSync(join(PROJECT_ROOT, page))) return false; // the test above
          return !headingAnchors(read(page)).has(decodeURIComponent(anchor));
        })
        .map((target) => `${doc}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('make anchors as GitHub does', () => {
    const page =
      '# Title\n## The `npm run bench` tables, 2×\n```\n# not a heading\n```\n## [Linked](x.md) *and* done\n## Title\n';
    expect([...headingAnchors(page)]).toEqual(['title', 'the-npm-run-bench-tables-2', 'linked-and-done', 'title-1']);
  });

  it('read as a manual: no remarks on the machine they were written on, no commit hashes', () => {
    const remarks =
      /this shared machine|while other work shared it|load average|at load \d|\b(commit|baseline) `?[0-9a-f]{7,40}\b/i;
    const found = [...DOCS, 'bench/results.md'].flatMap((doc) =>
      read(doc)
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => remarks.test(line))
        .map(({ line, index }) => `${doc}:${index + 1}: ${line.slice(0, 120)}`),
    );
    expect(found).toEqual([]);
  });
});

describe('the checks above', () => {
  it('find paths, scripts and links where a page writes them', () => {
    const page = [
      'See `shared/http` and `races.test.ts`, not `application/json` or `--help`.',
      '```sh',
      'npm run --silent lint && bash test/tools/cfn-lint.sh',
      '```',
      'Run `npm run bench -- --quick`. [Contract](docs/contract.md#routes), [out](https://example.com), <https://x.y>',
    ].join('\n');
    expect(pathSpans(page)).toEqual(['shared/http', 'races.test.ts']);
    expect(folderPaths(page, ['test', 'docs'])).toEqual(['test/tools/cfn-lint.sh', 'docs/contract.md']);
    expect(npmScripts(page)).toEqual(['lint', 'bench']);
    expect(linkTargets(page)).toEqual(['docs/contract.md#routes', 'https://example.com', 'https://x.y']);
    expect(exists('README.md', 'shared/no-such-folder')).toBe(false);
    expect(exists('docs/testing.md', 'no-such-file.test.ts')).toBe(false);
    expect(exists('docs/testing.md', 'contract.md')).toBe(true);
  });
});
