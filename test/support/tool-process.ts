import { spawn } from 'node:child_process';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command-line tool (`tools/<name>.ts`) as `npm run <name>` runs it, in its own process, stdin piped. */
export const runTool = (tool: string, args: string[], stdin = ''): Promise<ToolRun> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `tools/${tool}.ts`, ...args], {
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
