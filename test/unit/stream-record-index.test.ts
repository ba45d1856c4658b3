import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexStreamRecords } from '../../local/stream-record-index';

/** What the local database's start logs when Dynoxide's stream records cannot be indexed (it starts anyway). */
describe('indexing the stream records of a database file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'stream-index-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('says why when the file holds no stream records table (not a Dynoxide file, or a Dynoxide that keeps them elsewhere)', async () => {
    expect(await indexStreamRecords(join(folder, 'other.db'))).toBe('no such table: main._stream_records');
  });

  it('says why when the file cannot be opened', async () => {
    expect(await indexStreamRecords(join(folder, 'missing', 'dynoxide.db'))).toBe('unable to open database file');
  });
});
