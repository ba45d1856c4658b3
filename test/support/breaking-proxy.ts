import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy breaks, each a way a deployment can be wrong that the deployment check must notice:
 * - `repeat-nonce`: every 401 carries the first nonce it ever carried;
 * - `drop-challenge`: 401s lose their WWW-Authenticate header;
 * - `cut-list`: the whole list's body loses its closing `]`, the transfer itself ending cleanly;
 * - `break-list`: the whole list's connection is cut before the body's end;
 * - `shorten-list`: the whole list is a well-formed array without its last book;
 * - `move-location`: a 201's Location names another path;
 * - `drop-stage-location`: a 201's Location lacks the stage path;
 * - `hold-list`: the whole list, once books have been created, is never answered (to interrupt
 *   the check while it waits);
 * - `gateway-500-methods`: every OPTIONS and every 405 is API Gateway's own 500, as a MOCK
 *   integration under `binaryMediaTypes: ['*\/*']` answers them;
 * - `no-index`: `/api` is a 404 with no body, as before it pointed to the reference.
 */
export type Fault =
  | 'none'
  | 'repeat-nonce'
  | 'drop-challenge'
  | 'cut-list'
  | 'break-list'
  | 'shorten-list'
  | 'move-location'
  | 'drop-stage-location'
  | 'hold-list'
  | 'gateway-500-methods'
  | 'no-index';

export interface ProxyOptions {
  fault?: Fault;
  /** A path the proxy serves the API under, as a stage: `/prod`. */
  stage?: string;
  /** Called when `hold-list` holds a request. */
  onHeld?: () => void;
}

const readAll = async (stream: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const HOP_BY_HOP = ['content-length', 'transfer-encoding', 'connection', 'keep-alive'];

/**
 * A node:http proxy in front of a good server. Like a gateway it writes its own origin (and stage)
 * into `Location` and `Link`, so that a good server behind it passes the check; each fault then
 * breaks one thing. The upstream answer is read whole before it is passed on.
 */
export const startBreakingProxy = async (upstreamBaseUrl: string, options: ProxyOptions = {}) => {
  const upstream = new URL(upstreamBaseUrl);
  const stage = options.stage ?? '';
  const fault = options.fault ?? 'none';
  let firstNonce: string | undefined;
  let sawCreate = false;
  let origin = '';
  const held = new Set<IncomingMessage>();

  const server = createServer(async (request, response) => {
    const body = await readAll(request);
    const path = (request.url ?? '/').startsWith(stage) ? (request.url ?? '/').slice(stage.length) : '/not-in-stage';
    const isWholeList = request.method === 'GET' && path === '/api/books';
    if (request.method === 'POST') sawCreate = true;
    if (fault === 'hold-list' && isWholeList && sawCreate) {
      held.add(request);
      options.onHeld?.();
      return;
    }
    if (fault === 'no-index' && path === '/api') {
      response.writeHead(404, { 'content-length': '0' });
      response.end();
      return;
    }
    const answer = await new Promise<IncomingMessage>((done, fail) => {
      const forwarded = httpRequest(
        new URL(path, upstream),
        { method: request.method, headers: { ...request.headers, host: upstream.host } },
        done,
      );
      forwarded.on('error', fail);
      forwarded.end(body);
    });
    let payload = await readAll(answer);
    if (fault === 'gateway-500-methods' && (request.method === 'OPTIONS' || answer.statusCode === 405)) {
      const failure = Buffer.from('{"message":"An unexpected error occurred"}');
      response.writeHead(500, { 'content-type': 'application/json', 'content-length': String(failure.length) });
      response.end(failure);
      return;
    }
    const headers: IncomingHttpHeaders = { ...answer.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const rewrite = (url: string) => url.replaceAll(upstream.origin, `${origin}${stage}`);
    if (typeof headers.location === 'string') headers.location = rewrite(headers.location);
    if (typeof headers.link === 'string') headers.link = rewrite(headers.link);

    const challenge = headers['www-authenticate'];
    if (fault === 'repeat-nonce' && typeof challenge === 'string') {
      firstNonce ??= /nonce="([^"]*)"/.exec(challenge)?.[1];
      headers['www-authenticate'] = challenge.replace(/nonce="[^"]*"/g, `nonce="${firstNonce}"`);
    }
    if (fault === 'drop-challenge') delete headers['www-authenticate'];
    if (fault === 'move-location' && typeof headers.location === 'string')
      headers.location = headers.location.replace('/api/books/', '/elsewhere/api/books/');
    if (fault === 'drop-stage-location' && typeof headers.location === 'string')
      headers.location = headers.location.replace(`${origin}${stage}/`, `${origin}/`);
    if (isWholeList && answer.statusCode === 200) {
      if (fault === 'cut-list') payload = payload.subarray(0, payload.lastIndexOf(']'));
      if (fault === 'shorten-list')
        payload = Buffer.from(JSON.stringify((JSON.parse(payload.toString()) as unknown[]).slice(0, -1)));
      if (fault === 'break-list') {
        response.writeHead(200, { ...headers, 'transfer-encoding': 'chunked' });
        response.write(payload.subarray(0, Math.floor(payload.length / 2)));
        setTimeout(() => response.socket?.destroy(), 50);
        return;
      }
    }
    // A HEAD's Content-Length is its GET's (RFC 9110 §9.3.2), passed on as the server wrote it.
    const length = request.method === 'HEAD' ? answer.headers['content-length'] : String(payload.length);
    response.writeHead(answer.statusCode ?? 502, {
      ...headers,
      ...(length !== undefined && { 'content-length': length }),
    });
    response.end(payload);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}${stage}`,
    close: () =>
      new Promise<void>((done) => {
        for (const request of held) request.socket.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
