import { describe, expect, it } from 'vitest';
import { mutateEntries, parseUnifiedDiff } from '../../tools/changed-lines';
import { survivorsOutsideEquivalents } from '../../tools/mutation-survivors';

const DIFF = `diff --git a/shared/books/cursor.ts b/shared/books/cursor.ts
index 1111111..2222222 100644
--- a/shared/books/cursor.ts
+++ b/shared/books/cursor.ts
@@ -3,0 +4,2 @@ import x
+const a = 1;
+const b = 2;
@@ -10 +12 @@ export const f
-  return 1;
+  return 2;
@@ -20,3 +22,0 @@ gone
-x
-y
-z
diff --git a/shared/http/old.ts b/shared/http/old.ts
deleted file mode 100644
--- a/shared/http/old.ts
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
`;

describe('the lines a changed-lines mutation run mutates', () => {
  it('are the added and changed lines of each hunk, a one-line hunk included', () => {
    expect(parseUnifiedDiff(DIFF)).toEqual([
      {
        path: 'shared/books/cursor.ts',
        ranges: [
          { start: 4, end: 5 },
          { start: 12, end: 12 },
        ],
      },
    ]);
  });

  it('leave out pure deletions and deleted files, which have no line left to mutate', () => {
    expect(parseUnifiedDiff(DIFF).map(({ path }) => path)).not.toContain('shared/http/old.ts');
  });

  it('are given to Stryker in its path:start-end form', () => {
    expect(mutateEntries(parseUnifiedDiff(DIFF))).toEqual([
      'shared/books/cursor.ts:4-5',
      'shared/books/cursor.ts:12-12',
    ]);
  });
});

describe('a surviving mutant in a changed line', () => {
  const report = {
    files: {
      'shared/books/cursor.ts': {
        mutants: [
          {
            status: 'Survived',
            mutatorName: 'EqualityOperator',
            replacement: 'a <= b',
            location: { start: { line: 7, column: 2 } },
          },
          {
            status: 'NoCoverage',
            mutatorName: 'StringLiteral',
            replacement: '""',
            location: { start: { line: 9, column: 4 } },
          },
          {
            status: 'Killed',
            mutatorName: 'BooleanLiteral',
            replacement: 'false',
            location: { start: { line: 3, column: 1 } },
          },
        ],
      },
    },
  };

  it('fails the run unless mutation-equivalents.json lists it with a reason', () => {
    expect(survivorsOutsideEquivalents(report, [])).toEqual([
      'shared/books/cursor.ts:7 EqualityOperator → a <= b',
      'shared/books/cursor.ts:9 StringLiteral → ""',
    ]);
  });

  it('is matched by file, mutator and replacement, so a listed one passes wherever its line moves', () => {
    const equivalent = {
      file: 'shared/books/cursor.ts',
      mutator: 'EqualityOperator',
      replacement: 'a <= b',
      reason: 'a and b are never equal here',
    };
    expect(survivorsOutsideEquivalents(report, [equivalent])).toEqual(['shared/books/cursor.ts:9 StringLiteral → ""']);
  });
});
