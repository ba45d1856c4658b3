import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** A tool a test needs, missing from this machine: the test fails naming it, never skips. */
class MissingToolError extends Error {
  override name = 'MissingToolError';
  constructor(
    readonly tools: string[],
    command: string,
    options?: ErrorOptions,
  ) {
    super(
      `${command} needs ${tools.join(', ')}, which this machine lacks: install ${tools.length > 1 ? 'them' : 'it'} (the README's table says which command needs what)`,
      options,
    );
  }
}

const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** A name found in a PATH folder, or an absolute path that is there. */
const onPath = (tool: string) =>
  isAbsolute(tool)
    ? executable(tool)
    : (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, tool)));

/** Throws a MissingToolError naming every tool in `tools` that this machine lacks; `cause`: why an install did not help. */
export const requireTools = (command: string, tools: string[], cause?: unknown) => {
  const missing = tools.filter((tool) => !onPath(tool));
  if (missing.length > 0) throw new MissingToolError(missing, command, cause === undefined ? undefined : { cause });
};
