import { createServer, request as forwardRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one request of a client looked like on the wire, and what the server answered. */
export interface Exchange {
  path: string;
  /** `Basic`, `Digest MD5`, `Digest SHA-256`, or undefined when the request carried no credentials. */
  sent?: string;
  nonce?: string;
  status: number;
  nextnonce?: string;
  /** A 401 that said `stale=true`: the answer was right, its nonce no longer accepted. */
  stale?: boolean;
}

const param = (header: string, name: string) => header.match(new RegExp(`(?:^|[\\s,])${name}="?([^",]+)"?`, 'i'))?.[1];

const describeCredentials = (authorization: string | undefined) => {
  if (!authorization) return {};
  const scheme = authorization.split(' ', 1)[0]?.toLowerCase();
  if (scheme === 'basic') return { sent: 'Basic' };
  if (scheme !== 'digest') return { sent: authorization.split(' ', 1)[0] };
  const algorithm = param(authorization, 'algorithm')?.toUpperCase() ?? 'MD5';
  return { sent: `Digest ${algorithm}`, nonce: param(authorization, 'nonce') };
};

/**
 * A proxy in front of the local server for one client's cell: it forwards every request unchanged
 * and records which credentials each carried and what came back, so the table shows the scheme and
 * algorithm a client really used, its 401 legs, and whether it sent a `nextnonce` it was handed.
 */
export const recordingProxy = async (target: string) => {
  const exchanges: Exchange[] = [];
  const server = createServer((request, response) => {
    const forward = forwardRequest(
      `${target}${request.url}`,
      { method: request.method, headers: request.rawHeaders as unknown as Record<string, string> },
      (answer) => {
        const info = answer.headers['authentication-info'];
        exchanges.push({
          path: request.url ?? '',
          ...describeCredentials(request.headers.authorization),
          status: answer.statusCode ?? 0,
          nextnonce: typeof info === 'string' ? param(info, 'nextnonce') : undefined,
          ...(/stale=true/i.test(String(answer.headers['www-authenticate'] ?? '')) && { stale: true }),
        });
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.writeHead(502).end());
    request.pipe(forward);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The API's exchanges only (a browser also asks for /favicon.ico). */
    exchanges: () => exchanges.filter((exchange) => exchange.path.startsWith('/api/')),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
