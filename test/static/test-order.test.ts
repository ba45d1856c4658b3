import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FIRST } from '../../vitest.config';
import { PROJECT_ROOT } from '../support/source-files';

describe('the files npm test starts first', () => {
  it('all exist, so a renamed one cannot drop back to the end unnoticed', () => {
    expect(LONGEST_FIRST.length).toBeGreaterThan(0);
    expect(LONGEST_FIRST.filter((file) => !existsSync(join(PROJECT_ROOT, file)))).toEqual([]);
  });
});
