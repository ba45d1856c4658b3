import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DynoxideMissingError, dynoxideBinary } from '../../local/dynoxide-binary';

const folders: string[] = [];
const folder = () => {
  const made = mkdtempSync(join(tmpdir(), 'local-database-'));
  folders.push(made);
  return made;
};
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('the Dynoxide binary', () => {
  const quiet = () => undefined;

  it('is DYNOXIDE_BIN when that names an executable file', async () => {
    const binary = join(folder(), 'dynoxide');
    writeFileSync(binary, '#!/bin/sh\n', { mode: 0o755 });
    expect(await dynoxideBinary({ env: { DYNOXIDE_BIN: binary }, log: quiet })).toBe(binary);
  });

  it('refuses a DYNOXIDE_BIN that is not an executable file, naming it', async () => {
    const notExecutable = join(folder(), 'dynoxide');
    writeFileSync(notExecutable, '', { mode: 0o644 });
    for (const given of [notExecutable, join(folder(), 'missing')]) {
      await expect(dynoxideBinary({ env: { DYNOXIDE_BIN: given }, log: quiet })).rejects.toThrow(
        new DynoxideMissingError(`DYNOXIDE_BIN is "${given}", which is not an executable file`),
      );
    }
  });

  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'is the pinned npm package on linux-x64, with nothing else to install',
    async () => {
      expect(await dynoxideBinary({ env: {}, log: quiet })).toMatch(/node_modules\/@dynoxide\/linux-x64\/dynoxide$/);
    },
  );

  it('without the package, DYNOXIDE_BIN or cargo, names each way to get one', async () => {
    const failure = dynoxideBinary({
      env: { PATH: folder() },
      log: quiet,
      packaged: () => undefined,
      cache: folder(),
    });
    await expect(failure).rejects.toThrow(DynoxideMissingError);
    await expect(failure).rejects.toThrow(/@dynoxide\/linux-x64 serves linux-x64 only/);
    await expect(failure).rejects.toThrow(/install Rust \(cargo 1\.88 or later\) .* dynoxide-rs 2\.0\.1/);
    await expect(failure).rejects.toThrow(/DYNOXIDE_BIN .* DYNAMODB_ENDPOINT/);
  });
});
