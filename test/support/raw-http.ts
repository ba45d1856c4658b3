import { connect, type Socket } from 'node:net';

/** A response as read off the socket: status, lower-case headers (last value wins), body bytes. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

/**
 * Sends bytes exactly as given, which fetch and Node's client refuse to do for headers outside
 * Latin-1 or malformed request lines, and reads one response: Content-Length framed, or chunked (the
 * streamed list). Rejects when the server closes without answering.
 */
export const rawRequest = (port: number, request: string | Buffer, timeoutMs = 30_000): Promise<RawResponse> =>
  new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      fail(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (outcome: RawResponse | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) fail(outcome);
      else done(outcome);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received);
      if (parsed) finish(parsed);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error(`connection closed without a complete response: ${received}`)));
    socket.write(request);
  });

const parseResponse = (bytes: Buffer): RawResponse | undefined => {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body =
    headers['transfer-encoding']?.toLowerCase() === 'chunked'
      ? dechunk(bytes.subarray(end + 4))
      : contentOf(bytes.subarray(end + 4), Number(headers['content-length'] ?? 0));
  if (!body) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body, text: body.toString('utf8') };
};

const contentOf = (bytes: Buffer, length: number): Buffer | undefined =>
  bytes.length < length ? undefined : bytes.subarray(0, length);

/** The body of a chunked message (RFC 9112 §7.1), or undefined until its last chunk has arrived. */
const dechunk = (bytes: Buffer): Buffer | undefined => {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return bytes.indexOf('\r\n', lineEnd + 2) < 0 ? undefined : Buffer.concat(chunks);
    const dataEnd = lineEnd + 2 + size;
    if (bytes.length < dataEnd + 2) return undefined;
    chunks.push(bytes.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
};

/** A request with the given head lines and body, its Content-Length counted in bytes. */
export const rawHttp = (requestLine: string, headers: (string | Buffer)[], body?: string | Buffer): Buffer => {
  const bodyBytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const lines = [
    Buffer.from(`${requestLine}\r\n`, 'latin1'),
    ...headers.map((line) =>
      Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line, 'utf8'), Buffer.from('\r\n')]),
    ),
    ...(bodyBytes ? [Buffer.from(`Content-Length: ${bodyBytes.length}\r\n`)] : []),
    Buffer.from('Connection: close\r\n\r\n'),
  ];
  return Buffer.concat(bodyBytes ? [...lines, bodyBytes] : lines);
};

/** A connection opened and left as it is, for time-limit and connection-cap tests. */
export const openSocket = (port: number): Promise<Socket> =>
  new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => done(socket));
    socket.once('error', fail);
  });

/** Resolves when the server ends the connection; with what it wrote before. */
export const closedByServer = (socket: Socket): Promise<string> =>
  new Promise((done) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => done(text));
  });
