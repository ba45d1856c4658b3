import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endpointFile } from '../../local/endpoint-file';
import { startTool } from '../support/tool-process';

/**
 * A DATA_DIR left by an `npm start` that was killed still holds the address of its Dynoxide,
 * where nothing answers. The tools that read it say so and carry on, as `npm start` itself does,
 * rather than failing with a bare ECONNREFUSED.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'stale-address-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a stale DynamoDB address in DATA_DIR', () => {
  it('is named as stale by npm run users, removed, and the data folder opened instead', async () => {
    writeFileSync(endpointFile(dataDir), 'http://127.0.0.1:1');
    const run = await startTool('users', ['list'], { env: { DATA_DIR: dataDir, DYNAMODB_ENDPOINT: '' } }).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `${endpointFile(dataDir)} named http://127.0.0.1:1, where nothing answers: it was stale, left by an npm start that did not stop cleanly, and is removed`,
    );
    expect(run.stderr).not.toContain('ECONNREFUSED');
    expect(run.stdout).toContain('No account is locked.');
    expect(existsSync(endpointFile(dataDir))).toBe(false);
  }, 120_000);
});
