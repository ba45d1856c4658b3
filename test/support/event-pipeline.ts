import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from 'cloudevents';
import { freePort } from '../../local/ports';
import type { TableNames } from '../../local/tables';
import { type EventReceiver, startEventReceiver } from '../../tools/event-receiver';
import { asyncApiEventCheck } from './asyncapi';
import { BASIC_DEMO } from './local-api';
import { type ServerProcess, startServerProcess } from './server-process';

/** One POST the receiver got: the event as JSON, its Content-Type, and the status it was answered with. */
export interface Delivery {
  event: Record<string, unknown> & { id: string; type: string; subject: string; bookversion: number };
  contentType: string | undefined;
  status: number;
}

/**
 * A real CloudEvents receiver on a port of its own that records every POST; `answer` decides each
 * status (204 unless a test says otherwise), and `reopen` listens again on the same port after `close`.
 */
export const recordingReceiver = async (port?: number) => {
  const deliveries: Delivery[] = [];
  const state = {
    answer: (_event: Delivery['event']): number => 204,
  };
  const listen = (on?: number) =>
    startEventReceiver({
      port: on,
      onEvent: (event: CloudEvent<unknown>, contentType) => {
        const json = JSON.parse(JSON.stringify(event)) as Delivery['event'];
        const status = state.answer(json);
        deliveries.push({ event: json, contentType, status });
        return status;
      },
    });
  let receiver: EventReceiver = await listen(port);
  const bound = Number(new URL(receiver.url).port);
  return {
    deliveries,
    state,
    url: receiver.url,
    /** The events answered 2xx, in the order they arrived. */
    delivered: () => deliveries.filter((d) => d.status < 300).map((d) => d.event),
    close: () => receiver.close(),
    reopen: async () => {
      receiver = await listen(bound);
    },
  };
};

export type RecordingReceiver = Awaited<ReturnType<typeof recordingReceiver>>;

/** A URL on this machine where nothing listens (the port was free a moment ago). */
export const unreachableUrl = async () => `http://127.0.0.1:${await freePort()}/events`;

/** `npm start` on the run's Dynoxide with LOCAL_EVENTS_URL set, its DATA_DIR a fresh folder unless given. */
export const startWithEvents = (
  endpoint: string,
  names: TableNames,
  url: string,
  env: Record<string, string> = {},
): Promise<ServerProcess & { dataDir: string }> => {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'events-'));
  return startServerProcess(endpoint, names, [], {
    LOCAL_EVENTS_URL: url,
    LOCAL_EVENTS_FIRST_RETRY_MS: '20',
    DATA_DIR: dataDir,
    ...env,
  }).then((server) => ({ ...server, dataDir }));
};

/** Waits until `ready` holds, polling; fails with `what` after the timeout. */
export const until = async (ready: () => boolean, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
};

/** A request to the API as demo (Basic), JSON in and out. */
export const call = async (
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: BASIC_DEMO, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
};

/** The check of events against the AsyncAPI document the server itself serves (fetched without credentials). */
export const servedEventCheck = async (baseUrl: string) => {
  const response = await fetch(`${baseUrl}/api/asyncapi.json`);
  if (response.status !== 200) throw new Error(`GET /api/asyncapi.json answered ${response.status}`);
  return asyncApiEventCheck((await response.json()) as object);
};
