import { type ChildProcess, spawn } from 'node:child_process';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command-line tool (`tools/<name>.ts`) as its npm script runs it (package.json says which: `users`
 * is tools/users.ts, `data:check` tools/check-data.ts), in its own process, stdin piped, with `env`
 * added to this process's environment. `child` is there to signal it.
 */
export const startTool = (
  tool: string,
  args: string[],
  { stdin = '', env = {} }: { stdin?: string; env?: Record<string, string> } = {},
): { child: ChildProcess; done: Promise<ToolRun> } => {
  const child = spawn(process.execPath, ['--import', 'tsx', `tools/${tool}.ts`, ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<ToolRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  child.stdin.end(stdin);
  return { child, done };
};

export const runTool = (tool: string, args: string[], stdin = ''): Promise<ToolRun> =>
  startTool(tool, args, { stdin }).done;
