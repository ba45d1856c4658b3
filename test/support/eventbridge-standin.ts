import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One entry of a PutEvents request, as the SDK sent it on the wire. */
export interface ReceivedEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time?: number;
}

/**
 * What the stand-in answers to one entry: accept it, refuse it with an error code (and a message,
 * unless `errorMessage` is null), leave its result out of the answer, or fail the whole request with a status.
 */
type Verdict = 'accept' | 'no result' | { errorCode: string; errorMessage?: null } | { requestStatus: number };

export interface EventBridgeStandin {
  endpoint: string;
  /** Every PutEvents request's entries, in arrival order (refused ones included). */
  requests: ReceivedEntry[][];
  /** The entries it accepted, in order: what a bus would hold. */
  accepted: ReceivedEntry[];
  /** Decides each entry's fate; `seen` counts how often this Detail has arrived, this time included. */
  judge: (entry: ReceivedEntry, seen: number) => Verdict;
  close: () => Promise<void>;
}

/**
 * A local stand-in for EventBridge's PutEvents (there is no emulator): the JSON 1.1 protocol the
 * SDK speaks (`X-Amz-Target: AWSEvents.PutEvents`), answering FailedEntryCount and one result entry
 * per request entry, in order, so a test can refuse chosen entries the way EventBridge does.
 */
export const startEventBridgeStandin = async (): Promise<EventBridgeStandin> => {
  const seen = new Map<string, number>();
  const standin: EventBridgeStandin = {
    endpoint: '',
    requests: [],
    accepted: [],
    judge: () => 'accept',
    close: async () => undefined,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: String(request.headers['x-amz-target']) });
      }
      const entries = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries: ReceivedEntry[] }).Entries;
      standin.requests.push(entries);
      const verdicts = entries.map((entry) => {
        const count = (seen.get(entry.Detail) ?? 0) + 1;
        seen.set(entry.Detail, count);
        return standin.judge(entry, count);
      });
      const broken = verdicts.find((verdict) => typeof verdict === 'object' && 'requestStatus' in verdict);
      if (broken && 'requestStatus' in broken) {
        return reply(broken.requestStatus, { __type: 'InternalException', message: 'stand-in told to fail' });
      }
      const results = entries.map((entry, index) => {
        const verdict = verdicts[index];
        if (verdict === 'accept') {
          standin.accepted.push(entry);
          return { EventId: randomUUID() };
        }
        if (verdict === 'no result') return {};
        const { errorCode, errorMessage } = verdict as { errorCode: string; errorMessage?: null };
        return { ErrorCode: errorCode, ...(errorMessage !== null && { ErrorMessage: 'refused by the stand-in' }) };
      });
      reply(200, { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standin.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standin.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standin;
};
