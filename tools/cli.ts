/** A mistake in how a tool was called: exit code 2 and a pointer to `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Runs a command-line tool's main function the same way for every tool: `--help` prints the help
 * text, a UsageError exits 2 with a hint, any other error exits 1 with its message (no stack trace).
 */
export const runTool = (command: string, help: string, main: (args: string[]) => Promise<void>) => {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(help);
    return;
  }
  main(args).catch((error: Error) => {
    console.error(`error: ${error.message}`);
    if (error instanceof UsageError) console.error(`Run \`${command} -- --help\` for usage.`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
};

/** A positive whole number from an option's text, or a UsageError naming the option. */
export const positiveInteger = (name: string, text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer`);
  return value;
};
