import { type ParseArgsConfig, parseArgs } from 'node:util';
import { escapeControl } from './terminal-text';

/** A mistake in how a tool was called: reported with a `--help` hint and exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine<O extends Options> {
  /** How the tool is run, for the hint: `npm run users --`. */
  command: string;
  help: string;
  options: O;
  allowPositionals?: boolean;
  args?: string[];
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;

/**
 * Parses the arguments with node:util's parseArgs, strict, with `-h`/`--help` on every tool.
 * Prints the help and returns undefined when asked for it; turns parseArgs' own complaints
 * (unknown option, missing value, stray positional) into UsageErrors.
 */
export const parseCommandLine = <O extends Options>(spec: CommandLine<O>) => {
  const config = {
    options: { ...spec.options, ...HELP_OPTION },
    allowPositionals: spec.allowPositionals ?? false,
    strict: true,
    args: spec.args ?? process.argv.slice(2),
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code?.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((error as Error).message, { cause: error });
    throw error;
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(spec.help);
    return undefined;
  }
  return parsed;
};

/** A whole number from `min` to `max` given as `--name`, else the fallback. */
export const integerOption = (
  name: string,
  text: string | undefined,
  fallback: number,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    const range =
      max < Number.MAX_SAFE_INTEGER
        ? `${min}..${max}`
        : min === 1
          ? 'a positive integer'
          : `an integer of at least ${min}`;
    throw new UsageError(`--${name} must be ${range}`);
  }
  return value;
};

/** The stack's frames for DEBUG, escaped, without its first line: that repeats the message, which may quote a server. */
export const stackFrames = (error: Error): string =>
  (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map(escapeControl)
    .join('\n');

/**
 * Runs a tool's main function: a UsageError exits 2 with a hint to `--help`, any other failure
 * exits 1 with its message (the stack only with DEBUG set, since most failures are the
 * environment's: no Java, no table, no credentials). The message may quote a server's answer: its
 * control characters are printed escaped.
 */
export const runTool = (
  command: string,
  main: () => Promise<void>,
  describe = (error: Error) => escapeControl(error.message),
) => {
  main().catch((error: Error) => {
    console.error(`error: ${describe(error)}`);
    if (error instanceof UsageError) console.error(`Run \`${command} --help\` for usage.`);
    else if (process.env.DEBUG && error.stack) console.error(stackFrames(error));
    process.exit(error instanceof UsageError ? 2 : 1);
  });
};
