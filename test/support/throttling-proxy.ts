import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Passes one call (its body already read) on to DynamoDB at `upstream`, and its answer back. */
export const forwardTo = (upstream: URL, incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse) => {
  const forwarded = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: incoming.url,
      method: incoming.method,
      headers: incoming.headers,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => outgoing.destroy());
  forwarded.end(body);
};

/**
 * A proxy in front of DynamoDB that answers the calls of the operations it is told to throttle as
 * DynamoDB does past a partition's limit (400, ProvisionedThroughputExceededException), never
 * answers those it is told to hold (a paused database), and passes every other call through.
 * `throttled` and `held` count the calls it refused or held.
 */
export const startThrottlingProxy = async (target: string) => {
  const upstream = new URL(target);
  let operations = new Set<string>();
  let holding = new Set<string>();
  let throttled = 0;
  let held = 0;
  const proxy = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const operation = String(incoming.headers['x-amz-target']).split('.').pop() ?? '';
    if (holding.has(operation)) {
      held++;
      return; // never answered: the client's own time limit ends it
    }
    if (operations.has(operation)) {
      throttled++;
      outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      outgoing.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'The level of configured provisioned throughput for the table was exceeded.',
        }),
      );
      return;
    }
    forwardTo(upstream, incoming, Buffer.concat(chunks), outgoing);
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    /** Throttles every call of these operations from now on (none: stop throttling). */
    throttle: (...names: string[]) => {
      operations = new Set(names);
    },
    throttled: () => throttled,
    /** Holds every call of these operations unanswered from now on (none: stop holding). */
    hold: (...names: string[]) => {
      holding = new Set(names);
    },
    held: () => held,
    close: () =>
      new Promise<void>((done) => {
        proxy.closeAllConnections();
        proxy.close(() => done());
      }),
  };
};
