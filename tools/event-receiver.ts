import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CloudEvent, HTTP } from 'cloudevents';

/** The most of one request body the receiver reads: a book event is a few KiB (EventBridge takes 256 KiB). */
const BODY_LIMIT_BYTES = 256 * 1024;

export interface EventReceiver {
  url: string;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  port?: number;
  /** Called with each valid event and the request's Content-Type; its answer is the HTTP status (default 204). */
  onEvent: (event: CloudEvent<unknown>, contentType: string | undefined) => number | undefined;
  /** Called with what was not a CloudEvent (answered 400). */
  onInvalid?: (reason: string) => void;
}

class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new BodyTooLargeError(`a body over ${BODY_LIMIT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * A CloudEvents HTTP receiver on 127.0.0.1: each POST is read with the CNCF SDK (either binding
 * mode, validated), handed to `onEvent`, and answered with its status. `npm run events:watch` and
 * the e2e tests use it.
 */
export const startEventReceiver = async (options: ReceiverOptions): Promise<EventReceiver> => {
  const server: Server = createServer((request, response) => {
    readBody(request)
      .then((body) => {
        let event: CloudEvent<unknown>;
        try {
          event = HTTP.toEvent({ headers: request.headers, body }) as CloudEvent<unknown>;
        } catch (error) {
          options.onInvalid?.(`not a CloudEvent: ${(error as Error).message}`);
          response.writeHead(400).end();
          return;
        }
        response.writeHead(options.onEvent(event, request.headers['content-type']) ?? 204).end();
      })
      .catch((error: Error) => {
        options.onInvalid?.(error.message);
        response.writeHead(413, { connection: 'close' }).end();
      });
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', done);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
};
