import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { FUNCTION_TIMEOUT_SECONDS } from '../shared/api/routes';
import { matchResource, matchRoute, type ResourceMatch } from './route-matching';
import { isStreamedResult, type StreamedProxyResult, writeStreamedResult } from './streaming-response';

/** What API Gateway itself answers, without calling a function. */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda's limit on a synchronous invoke's payload (6 MB): the whole proxy event as JSON, the body
 * in base64. A body of about 4.4 MB or more passes API Gateway's 10 MB but not this, and the gateway
 * answers 413 itself (the stack shapes it like the handlers' 413).
 */
const LAMBDA_MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Whether Lambda would refuse to be invoked with this event. */
export const exceedsInvokePayload = (event: APIGatewayProxyEvent) =>
  event.body !== null && Buffer.byteLength(JSON.stringify(event)) > LAMBDA_MAX_INVOKE_PAYLOAD_BYTES;

/**
 * API Gateway's fixed quota on the request line plus all header values. Past it the gateway refuses
 * the request itself (AWS does not document the status; the local server answers 431). Node's own
 * 16 KiB limit on the whole header block still applies beyond that, also with a 431.
 */
export const GATEWAY_MAX_HEADER_BYTES = 10_240;

export const headerBytes = (request: IncomingMessage): number => {
  let total = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let i = 1; i < request.rawHeaders.length; i += 2) total += Buffer.byteLength(request.rawHeaders[i] as string);
  return total;
};

/** Headers API Gateway sets itself, whatever the client sent. */
const GATEWAY_SET_HEADERS = new Set(['x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-port']);

/**
 * Node reads header bytes as Latin-1; API Gateway hands a function UTF-8 text. A value that is valid
 * UTF-8 is read as such (a `jörg` in Basic or Digest credentials), anything else is left as Node read it.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });
const headerText = (latin1: string): string => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for bytes above ASCII
  if (!/[^\u0000-\u007f]/.test(latin1)) return latin1;
  try {
    return utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return latin1;
  }
};

/**
 * Client-chosen names are collected in Maps and turned into objects with Object.fromEntries, which
 * defines each name as an own property: a header or parameter called `__proto__` or `constructor`
 * is then just a name, never the prototype or an inherited function.
 */
const appendTo = (groups: Map<string, string[]>, name: string, value: string) => {
  const values = groups.get(name);
  if (values) values.push(value);
  else groups.set(name, [value]);
};

const lastValues = (groups: Map<string, string[]>) =>
  Object.fromEntries([...groups].map(([name, values]) => [name, values[values.length - 1] as string]));

const groupHeaders = (raw: string[]) => {
  const groups = new Map<string, string[]>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (GATEWAY_SET_HEADERS.has(name.toLowerCase())) continue;
    appendTo(groups, name, headerText(raw[i + 1] as string));
  }
  // API Gateway keeps the last value in `headers`, all of them in `multiValueHeaders`.
  return { headers: lastValues(groups), multiValueHeaders: Object.fromEntries(groups) };
};

const groupQuery = (search: URLSearchParams) => {
  const groups = new Map<string, string[]>();
  for (const [name, value] of search) appendTo(groups, name, value);
  if (groups.size === 0) return { single: null, multi: null };
  return { single: lastValues(groups), multi: Object.fromEntries(groups) };
};

/**
 * A request as the gateway receives it: what the local server reads off a socket, or what the bench
 * and the tests describe by its parts.
 */
interface GatewayRequest {
  /** Header names and values in arrival order, as Node's `rawHeaders`. */
  rawHeaders: string[];
  httpVersion: string;
  sourceIp: string;
  /** The address the server listens on: the request context's `domainName`, the origin of every link. */
  localAddress?: string;
  localPort?: number;
  /** The stage the request named before the route's path (LOCAL_STAGE); none: the path is the route's. */
  stage?: string;
}

/** An address as the host part of a URL (an IPv6 literal in brackets). */
const hostOf = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);

/**
 * A body as API Gateway hands it to a function: the stack declares every media type binary
 * (`binaryMediaTypes: ['*\/*']`), so every body arrives in base64 with `isBase64Encoded`, the very
 * bytes the client sent, and the function decodes and checks them.
 */
const bodyOf = (body: Buffer): { body: string | null; isBase64Encoded: boolean } =>
  body.length === 0 ? { body: null, isBase64Encoded: false } : { body: body.toString('base64'), isBase64Encoded: true };

const forwardedHeaders = (request: GatewayRequest): Record<string, string> => ({
  'X-Forwarded-For': request.sourceIp,
  'X-Forwarded-Port': String(request.localPort ?? ''),
  'X-Forwarded-Proto': 'http',
});

/** A header as Node's parser keeps it for single-valued headers such as Host: the first one sent. */
const firstHeader = (rawHeaders: string[], name: string): string | undefined => {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === name) return rawHeaders[i + 1];
  }
  return undefined;
};

/**
 * The REST API proxy event API Gateway would send for this request. `url` is the path past the stage;
 * with a stage, `requestContext.path` names it first, as on an execute-api URL.
 */
const proxyEventOf = (request: GatewayRequest, url: URL, body: Buffer, match: ResourceMatch): APIGatewayProxyEvent => {
  const { headers, multiValueHeaders } = groupHeaders(request.rawHeaders);
  const query = groupQuery(url.searchParams);
  const now = new Date();
  const sourceIp = request.sourceIp;
  const forwarded = forwardedHeaders(request);
  const hasPathParameters = Object.keys(match.pathParameters).length > 0;
  return {
    resource: match.resource,
    path: url.pathname,
    httpMethod: match.method,
    headers: { ...headers, ...forwarded },
    multiValueHeaders: {
      ...multiValueHeaders,
      ...Object.fromEntries(Object.entries(forwarded).map(([name, value]) => [name, [value]])),
    },
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: hasPathParameters ? match.pathParameters : null,
    stageVariables: null,
    ...bodyOf(body),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: match.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: firstHeader(request.rawHeaders, 'user-agent') ?? null,
        userArn: null,
      },
      // The server's own address, never the client's Host (on AWS: the API's own domain name).
      domainName: hostOf(request.localAddress ?? '127.0.0.1'),
      path: request.stage ? `/${request.stage}${url.pathname}` : url.pathname,
      stage: request.stage ?? 'local',
      requestId: randomUUID(),
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: 'local',
      resourcePath: match.resource,
    },
  };
};

/** The proxy event for a request arriving at the local server. */
export const toProxyEvent = (
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  match: ResourceMatch,
  stage: string | undefined,
) =>
  proxyEventOf(
    {
      ...(stage && { stage }),
      rawHeaders: request.rawHeaders,
      httpVersion: request.httpVersion,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      ...(request.socket.localAddress && { localAddress: request.socket.localAddress }),
      localPort: request.socket.localPort,
    },
    url,
    body,
    match,
  );

/** A request described by its parts rather than read off a socket (bench, tests). */
export interface DescribedRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  target: string;
  /** Header values as text; they travel as UTF-8, as curl and browsers send them. */
  headers?: Record<string, string>;
  /** Text travels as UTF-8; bytes as they are. */
  body?: string | Buffer;
}

/**
 * The proxy event for a described request, sent from loopback over HTTP/1.1 to port 3000, routed by
 * the route table as the local server routes (a method without a route: UNROUTED_METHODS' event);
 * undefined for a path the API does not have (the gateway answers 404 itself).
 */
export const proxyEventFor = (request: DescribedRequest): APIGatewayProxyEvent | undefined => {
  const url = new URL(request.target, 'http://127.0.0.1');
  const match = matchRoute(request.method, url.pathname) ?? matchResource(request.method, url.pathname);
  if (!match) return undefined;
  const headers = { host: '127.0.0.1', ...request.headers };
  // Node's HTTP parser hands each header byte over as one Latin-1 character: the values are put on
  // the wire as UTF-8 bytes in that same form, so the gateway decodes them exactly as for a socket.
  const rawHeaders = Object.entries(headers).flatMap(([name, value]) => [
    name,
    Buffer.from(value, 'utf8').toString('latin1'),
  ]);
  return proxyEventOf(
    { rawHeaders, httpVersion: '1.1', sourceIp: '127.0.0.1', localAddress: '127.0.0.1', localPort: 3000 },
    url,
    Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body ?? '', 'utf8'),
    match,
  );
};

/** A Lambda context good enough for middy and Powertools: ids, names and the functions' own deadline. */
export const lambdaContext = (
  functionName: string,
  requestId: string,
  timeoutMs = FUNCTION_TIMEOUT_SECONDS * 1_000,
): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** Writes a proxy integration result as API Gateway would; a streamed one as its STREAM transfer mode does. */
export const writeResult = (response: ServerResponse, result: APIGatewayProxyResult | StreamedProxyResult) => {
  if (isStreamedResult(result)) {
    writeStreamedResult(response, result).catch((error: unknown) => console.error('response stream cut', error));
    return;
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    response.setHeader(name, values.map(String));
  }
  response.statusCode = result.statusCode;
  // 304 has no content (RFC 9110 §15.4.5): no body, and no Content-Length that would describe one.
  if (result.statusCode === 304) {
    response.removeHeader('Content-Type');
    response.end();
    return;
  }
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  response.setHeader('Content-Length', body.length);
  response.end(body);
};
