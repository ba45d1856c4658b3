import { isIPv4, isIPv6 } from 'node:net';
import { UsageError } from './cli';

/*
 * What the tools that talk to a server (seed, load, verify:deployment) hold against it: they send a
 * password, print what it answers and read its bodies, so a server they were pointed at by mistake,
 * or a hostile one, must get no password in clear text, write nothing to the terminal but text, and
 * cost a bounded amount of memory.
 */

/** The option that lets a tool send credentials over plain http:// to an address that is not loopback. */
export const ALLOW_INSECURE_HTTP = 'allow-insecure-http';

/** The largest answer a tool reads, unless a request says otherwise: far above any book or page it asks for. */
export const ANSWER_LIMIT_BYTES = 1024 * 1024;

/**
 * The largest unpaged list: Lambda ends a streamed response at 200 MB (docs/reliability.md), and
 * `npm start` holds to the same byte budget.
 */
export const WHOLE_LIST_LIMIT_BYTES = 200_000_000;

/** An answer whose body passed the limit the tool set for it; the rest was not read. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  constructor(
    readonly limitBytes: number,
    what: string,
  ) {
    super(
      `answer too large: ${what} is over the ${limitBytes} bytes this tool reads from one answer; not read further`,
    );
  }
}

/**
 * Whether a URL's host is this machine's loopback interface: 127.0.0.0/8, ::1, or `localhost`
 * itself. Not `*.localhost`: what such a name resolves to is the resolver's choice, not ours.
 */
export const isLoopback = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (isIPv6(host)) return host === '::1' || /^::ffff:127\./.test(host) || /^(0+:){7}0*1$/.test(host);
  return false;
};

/**
 * Refuses a URL over which credentials would cross a network in clear text: plain http:// to any
 * host but loopback, unless the user passed --allow-insecure-http.
 */
export const checkTransport = (url: URL, allowInsecureHttp: boolean) => {
  if (url.protocol !== 'http:' || allowInsecureHttp || isLoopback(url.hostname)) return;
  throw new UsageError(
    `refusing to send credentials over plain http:// to ${url.host}, which is not this machine: ` +
      `use https://, or pass --${ALLOW_INSECURE_HTTP} if the network to it is yours`,
  );
};

/**
 * A response's body as text, read up to `limitBytes`: a Content-Length over it is refused before a
 * byte is read, and a body that passes it on the way is abandoned there (the connection closed).
 */
export const readBounded = async (response: Response, limitBytes: number, what: string): Promise<string> => {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(limitBytes, what);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(limitBytes, what);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
};
