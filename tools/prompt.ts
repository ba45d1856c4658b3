import { UsageError } from './cli';

/**
 * Reads a line from the terminal in raw mode without echoing it: the public TTY API, rather than
 * readline with its output muted through private methods. Backspace deletes, Ctrl-C cancels.
 */
export const promptHidden = (prompt: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const input = process.stdin;
    let typed: string[] = [];
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stdout.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          finish();
          resolve(typed.join(''));
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new Error('cancelled'));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed.push(char);
      }
    };
    process.stdout.write(prompt);
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });

/** The password from stdin when it is piped (one line, no echo question), else from a hidden prompt, asked twice. */
export const readPassword = async (): Promise<string> => {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  const password = await promptHidden('Password: ');
  if ((await promptHidden('Password again: ')) !== password)
    throw new UsageError('the two passwords differ: nothing was saved');
  return password;
};

/** A tool's password: its environment variable's value, else piped stdin, else a prompt that does not echo. */
export const readToolPassword = async (fromEnvironment: string | undefined, username: string): Promise<string> => {
  if (fromEnvironment) return fromEnvironment;
  if (process.stdin.isTTY) return promptHidden(`Password for ${username}: `);
  return readPassword();
};
