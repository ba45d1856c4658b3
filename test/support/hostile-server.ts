import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Bytes a hostile endpoint writes to reach the terminal: clear the screen, retitle it, fake a verdict. */
export const TERMINAL_ATTACK = '\x1b[2J\x1b]0;owned\x07\r\x1b[32mPASS  everything\x1b[0m';

export interface HostileServer {
  baseUrl: string;
  /** Every request it received, as `METHOD path`, with the Authorization it carried. */
  received: { request: string; authorization: string | undefined }[];
  close: () => Promise<void>;
}

/**
 * A server on 127.0.0.1 that answers what a test tells it to: the endpoint a tool must not trust.
 * `answer` writes the whole response; the server records each request first.
 */
export const startHostileServer = async (
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<HostileServer> => {
  const received: HostileServer['received'] = [];
  const server = createServer((request, response) => {
    received.push({ request: `${request.method} ${request.url}`, authorization: request.headers.authorization });
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Writes `megabytes` MiB of JSON-looking text in 64 KiB chunks, as long as the client reads. */
export const endlessBody = (response: ServerResponse, megabytes: number, status = 200) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let left = megabytes * 16;
  const write = () => {
    while (left > 0) {
      left--;
      if (!response.write(chunk)) {
        response.once('drain', write);
        return;
      }
    }
    response.end('[]');
  };
  response.on('error', () => undefined);
  write();
};
