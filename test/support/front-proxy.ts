import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A front before the API that changes the path on the way, as a CDN or custom domain does: a
 * CloudFront origin path adds the stage (`/api/books` → `/prod/api/books`), a base path mapping
 * takes its base off (`/library/api/books` → `/api/books`). Method, headers (Host aside), body
 * and the answer pass through unchanged; `headers` are added to every request, as a front's
 * own origin headers are.
 */
export interface FrontOptions {
  rewritePath: (path: string) => string;
  headers?: () => Record<string, string>;
}

export const startFrontProxy = async (upstream: () => string, { rewritePath, headers }: FrontOptions) => {
  const server = createServer((incoming, outgoing) => {
    const target = new URL(upstream());
    const [path = '/', query] = (incoming.url ?? '/').split(/\?(.*)/s);
    const { host: _, ...passed } = incoming.headers;
    const upstreamRequest = forward(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: `${rewritePath(path)}${query === undefined ? '' : `?${query}`}`,
        headers: { ...passed, host: target.host, ...headers?.() },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(outgoing);
      },
    );
    upstreamRequest.on('error', () => outgoing.destroy());
    incoming.pipe(upstreamRequest);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
