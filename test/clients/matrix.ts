import { markdownTable } from '../../bench/markdown';
import type { Client } from './catalogue';
import type { Answer, Mode, Scheme } from './cell';
import { type Exchange, recordingProxy } from './recording-proxy';

export type UserKind = 'ASCII' | 'UTF-8';

/** One measured cell: what was asked, what went over the wire, what came back. */
export interface Row {
  client: string;
  version: string;
  scheme: Scheme;
  mode: Mode;
  user: UserKind;
  /** The credentials the client's last request carried (`Basic`, `Digest MD5`, ...), or `none`. */
  sent: string;
  get: number;
  post: number;
  /** 401 legs over the client's requests to the API. */
  challenges: number;
  requests: number;
  /** Whether a request carried a `nextnonce` that an earlier `Authentication-Info` handed out. */
  usedNextnonce: boolean;
  passed: boolean;
  cause: string;
}

/** A user of its own per cell, so that no cell's failures count against another cell's account. */
export const cellUser = (kind: UserKind, n: number) =>
  kind === 'ASCII' ? { user: `reader${n}`, password: `secret-${n}` } : { user: `jörg${n}`, password: `pässwörd-${n}` };

const schemeMatches = (scheme: Scheme, sent: string) =>
  scheme === 'any' ? sent !== 'none' : sent.toLowerCase().startsWith(scheme);

/** What went wrong, from the driver's own error or from the exchanges the proxy saw. */
const causeOf = (answer: Answer, exchanges: Exchange[], scheme: Scheme, sent: string, base: string) => {
  if (answer.error) {
    return answer.error
      .replaceAll(base, '<server>')
      .replace(/127\.0\.0\.1:\d+/g, '<server>')
      .replace(/\s+/g, ' ')
      .replaceAll('|', '/')
      .slice(0, 160);
  }
  if (sent === 'none') return 'sent no credentials after the 401';
  if (!schemeMatches(scheme, sent)) return `answered with ${sent}`;
  const refused = exchanges.filter((exchange) => exchange.sent && exchange.status === 401).length;
  return `${refused} answer(s) with ${sent} refused (401)`;
};

export const measureCell = async (
  client: Client,
  version: string,
  base: string,
  cell: { scheme: Scheme; mode: Mode; user: UserKind; n: number; body: string; path: string },
): Promise<Row> => {
  const proxy = await recordingProxy(base);
  let answer: Answer;
  try {
    answer = await client.run({ ...cell, ...cellUser(cell.user, cell.n), base: proxy.baseUrl });
  } finally {
    await proxy.close();
  }
  const exchanges = proxy.exchanges();
  const sent = exchanges.findLast((exchange) => exchange.sent)?.sent ?? 'none';
  const handedOut = new Set(exchanges.flatMap((exchange) => (exchange.nextnonce ? [exchange.nextnonce] : [])));
  const get = answer.get ?? 0;
  const post = answer.post ?? 0;
  const passed = !answer.error && get === 200 && post === 201 && schemeMatches(cell.scheme, sent);
  return {
    client: client.name,
    version,
    scheme: cell.scheme,
    mode: cell.mode,
    user: cell.user,
    sent,
    get,
    post,
    challenges: exchanges.filter((exchange) => exchange.status === 401).length,
    requests: exchanges.length,
    usedNextnonce: exchanges.some((exchange) => exchange.nonce !== undefined && handedOut.has(exchange.nonce)),
    passed,
    cause: passed ? '' : causeOf(answer, exchanges, cell.scheme, sent, proxy.baseUrl),
  };
};

/** Runs tasks with at most `width` at a time, keeping their order in the result. */
export const inParallel = async <T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> => {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
};

const SCHEME_NAMES: Record<Scheme, string> = { basic: 'Basic', digest: 'Digest', any: 'client picks' };

/**
 * The generated table of docs/security.md#clients: one line per cell of the default challenge, the
 * ASCII and UTF-8 users' cells on one line (user `both`) when everything else measured is the same.
 */
export const cellTable = (rows: Row[]) => {
  const lines: string[][] = [];
  for (const row of rows) {
    const line = [
      row.client,
      row.version,
      SCHEME_NAMES[row.scheme],
      row.mode === 'challenge' ? 'challenge-driven' : 'preemptive',
      row.user,
      row.sent,
      String(row.get),
      String(row.post),
      `${row.challenges} of ${row.requests}`,
      row.sent.startsWith('Digest') ? (row.usedNextnonce ? 'used' : 'not used') : '—',
      row.passed ? 'pass' : `**fail**: ${row.cause}`,
    ];
    const previous = lines.at(-1);
    const twin =
      previous?.[4] === 'ASCII' && row.user === 'UTF-8' && previous.every((cell, i) => i === 4 || cell === line[i]);
    if (previous && twin) previous[4] = 'both';
    else lines.push(line);
  }
  return markdownTable(
    ['client', 'version', 'scheme asked', 'mode', 'user', 'sent', 'GET', 'POST', '401 legs', 'nextnonce', 'result'],
    lines,
  );
};

/** Per challenge: how many clients authenticate challenge-driven with every scheme they support. */
export const offerTable = (offers: { label: string; isDefault: boolean; rows: Row[] }[], clients: string[]) =>
  markdownTable(
    [
      '`WWW-Authenticate` (nonce, opaque, qop, charset left out)',
      'clients that pass',
      'clients that fail',
      'SHA-256 used by',
    ],
    offers.map((offer) => {
      const failing = failingClients(offer.rows);
      const sha256 = new Set(offer.rows.filter((row) => row.sent === 'Digest SHA-256').map((row) => row.client));
      return [
        `${offer.isDefault ? '**default**: ' : ''}\`${offer.label}\``,
        `${clients.length - failing.length} of ${clients.length}`,
        failing.join(', ') || '—',
        [...sha256].join(', ') || '—',
      ];
    }),
    ['left', 'right', 'left', 'left'],
  );

/** Clients with a challenge-driven cell that did not pass. */
export const failingClients = (rows: Row[]) => [
  ...new Set(rows.filter((row) => row.mode === 'challenge' && !row.passed).map((row) => row.client)),
];
