import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One DynamoDB call as the meter saw it. */
export interface MeteredCall {
  operation: string;
  /** Capacity units DynamoDB reported (ReturnConsumedCapacity TOTAL), summed over tables and indexes. */
  capacityUnits: number;
  status: number;
  /** The request and response bodies (DynamoDB JSON), for the per-key capacity model. */
  request: Record<string, unknown>;
  response: Record<string, unknown>;
}

export interface DynamoMeter {
  /** Point a function's DYNAMODB_ENDPOINT here. */
  endpoint: string;
  /** Calls since the last take, oldest first; the meter starts a new record. */
  take(): MeteredCall[];
  close(): Promise<void>;
}

interface ConsumedCapacity {
  CapacityUnits?: number;
}

const capacityOf = (body: { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }): number =>
  [body.ConsumedCapacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);

/**
 * A loopback proxy in front of Dynoxide that counts every call a function makes and asks for
 * its consumed capacity (it adds `ReturnConsumedCapacity: TOTAL` to the request). Metering on the
 * wire rather than with an SDK middleware measures the bundles as shipped, with their own SDK copy,
 * and needs no hook in the store. Dynoxide does not check request signatures, so the changed
 * body is accepted; responses pass through untouched (the SDK checks their CRC32).
 */
export const startDynamoMeter = async (target: string): Promise<DynamoMeter> => {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let calls: MeteredCall[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const body = Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          agent,
          headers: { ...incoming.headers, 'content-length': String(body.length) },
        },
        (response) => {
          const reply: Buffer[] = [];
          response.on('data', (chunk: Buffer) => reply.push(chunk));
          response.on('end', () => {
            const raw = Buffer.concat(reply);
            let capacityUnits = 0;
            let parsed: Record<string, unknown> = {};
            try {
              parsed = JSON.parse(raw.toString('utf8') || '{}');
              capacityUnits = capacityOf(parsed);
            } catch {
              // not JSON: an error page; counted with no capacity
            }
            calls.push({
              operation,
              capacityUnits,
              status: response.statusCode ?? 0,
              request: input,
              response: parsed,
            });
            outgoing.writeHead(response.statusCode ?? 502, response.headers);
            outgoing.end(raw);
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502);
        outgoing.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    take: () => {
      const taken = calls;
      calls = [];
      return taken;
    },
    close: () =>
      new Promise<void>((done) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export interface CallSummary {
  roundTrips: number;
  /** Read and write capacity units, as DynamoDB reported them. */
  reads: number;
  writes: number;
  capacity: number;
  /** e.g. "GetItem + TransactWriteItems", "Query ×3". */
  operations: string;
}

/** The calls of `requests` requests, per request (a create's id-block reservation is shared by a block's creates). */
export const summarize = (calls: MeteredCall[], requests = 1): CallSummary => {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.operation, (counts.get(call.operation) ?? 0) + 1);
  const sum = (picked: MeteredCall[]) => picked.reduce((total, call) => total + call.capacityUnits, 0) / requests;
  const reads = sum(calls.filter((call) => READS.has(call.operation)));
  const writes = sum(calls.filter((call) => !READS.has(call.operation)));
  return {
    roundTrips: calls.length / requests,
    reads,
    writes,
    capacity: reads + writes,
    operations: [...counts].map(([op, n]) => (n === requests ? op : `${op} ×${n / requests}`)).join(' + ') || 'none',
  };
};
