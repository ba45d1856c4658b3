import { execFileSync } from 'node:child_process';

/** Lines added or changed in one file since a base commit, as inclusive 1-based ranges. */
export interface ChangedFile {
  path: string;
  ranges: { start: number; end: number }[];
}

/**
 * Reads `git diff --unified=0` output: each hunk header `@@ -a,b +c,d @@` names the new file's changed
 * lines (c to c+d-1; d omitted means 1, d = 0 a pure deletion, which leaves no line to mutate).
 */
export const parseUnifiedDiff = (diff: string): ChangedFile[] => {
  const files: ChangedFile[] = [];
  let current: ChangedFile | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      const target = line.slice(4);
      current = target === '/dev/null' ? undefined : { path: target.replace(/^b\//, ''), ranges: [] };
      if (current) files.push(current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!hunk || !current) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    if (count > 0) current.ranges.push({ start, end: start + count - 1 });
  }
  return files.filter((file) => file.ranges.length > 0);
};

/**
 * The TypeScript lines changed since `base` under `folders`, committed or not (types.ts files hold no
 * code). A renamed file counts only the lines its move changed.
 */
export const changedLinesSince = (base: string, folders: readonly string[]): ChangedFile[] => {
  const diff = execFileSync(
    'git',
    // A plain pathspec's `*` crosses folders, so `shared/books/*.ts` takes the whole subtree.
    [
      'diff',
      '--unified=0',
      '--no-color',
      '--find-renames',
      base,
      '--',
      ...folders.map((path) => (path.endsWith('.ts') ? path : `${path}*.ts`)),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return parseUnifiedDiff(diff).filter((file) => !file.path.endsWith('/types.ts') && !file.path.endsWith('.d.ts'));
};

/** Stryker's `mutate` entries for changed lines: `path:start-end` (Stryker's line-range syntax). */
export const mutateEntries = (files: readonly ChangedFile[]): string[] =>
  files.flatMap((file) => file.ranges.map(({ start, end }) => `${file.path}:${start}-${end}`));
