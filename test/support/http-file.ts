import { digestAuthorization } from './api-client';

/**
 * Reads `.http` files in the REST Client / JetBrains HTTP Client format: `@name = value` file
 * variables, requests separated by `###` lines, `# comments`, a request line, headers, a blank line,
 * a body. Two comment directives: `# @name <id>` (REST Client's request name, for
 * `{{id.response.body.$.field}}` and `{{id.response.headers.Name}}`) and `# @expect <status>`, this
 * project's convention for the status a request must get.
 */
export interface HttpFileRequest {
  title: string;
  /** 1-based line of the request line, for messages. */
  line: number;
  name?: string;
  expect?: number;
  method: string;
  url: string;
  headers: [string, string][];
  body?: string;
}

export interface HttpFile {
  variables: Map<string, string>;
  requests: HttpFileRequest[];
}

const COMMENT = /^\s*(#|\/\/)/;

export const parseHttpFile = (text: string): HttpFile => {
  const variables = new Map<string, string>();
  const requests: HttpFileRequest[] = [];
  const lines = text.split(/\r?\n/);
  let block: { title: string; start: number; lines: string[] } | undefined;
  const flush = () => {
    if (block) {
      const request = parseBlock(block.title, block.start, block.lines);
      if (request) requests.push(request);
    }
  };
  lines.forEach((line, i) => {
    if (line.startsWith('###')) {
      flush();
      block = { title: line.slice(3).trim(), start: i + 1, lines: [] };
      return;
    }
    const variable = /^@([\w-]+)\s*=\s*(.*)$/.exec(line);
    if (!block && variable) variables.set(variable[1] as string, (variable[2] as string).trim());
    else block?.lines.push(line);
  });
  flush();
  return { variables, requests };
};

const parseBlock = (title: string, start: number, lines: string[]): HttpFileRequest | undefined => {
  let name: string | undefined;
  let expected: number | undefined;
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    if (!COMMENT.test(line)) break;
    name = /@name\s+(\S+)/.exec(line)?.[1] ?? name;
    const status = /@expect\s+(\d{3})\b/.exec(line)?.[1];
    if (status) expected = Number(status);
  }
  if (i >= lines.length) return undefined;
  const [method, url] = (lines[i] as string).trim().split(/\s+/);
  const line = start + i + 1;
  const headers: [string, string][] = [];
  for (i++; i < lines.length && (lines[i] as string).trim() !== ''; i++) {
    const header = lines[i] as string;
    if (COMMENT.test(header)) continue;
    const colon = header.indexOf(':');
    headers.push([header.slice(0, colon).trim(), header.slice(colon + 1).trim()]);
  }
  const body = lines
    .slice(i + 1)
    .join('\n')
    .trim();
  return {
    title,
    line,
    ...(name && { name }),
    ...(expected && { expect: expected }),
    method: method as string,
    url: url as string,
    headers,
    ...(body && { body }),
  };
};

interface NamedResponse {
  body: unknown;
  headers: Headers;
}

export interface HttpFileResult {
  request: HttpFileRequest;
  url: string;
  status: number;
  text: string;
  headers: Headers;
}

/** `{{variable}}`, `{{name.response.body.$.path}}` and `{{name.response.headers.Name}}`. */
const substitute = (text: string, variables: Map<string, string>, responses: Map<string, NamedResponse>): string =>
  text.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_, reference: string): string => {
    const chained = /^([\w-]+)\.response\.(body|headers)\.(.+)$/.exec(reference);
    if (!chained) {
      const value = variables.get(reference);
      if (value === undefined) throw new Error(`unknown variable {{${reference}}}`);
      return substitute(value, variables, responses);
    }
    const [, name, part, path] = chained as unknown as [string, string, string, string];
    const response = responses.get(name);
    if (!response) throw new Error(`{{${reference}}} refers to a request that has not run`);
    if (part === 'headers') return response.headers.get(path) ?? '';
    let value: unknown = response.body;
    for (const key of path
      .replace(/^\$\.?/, '')
      .split('.')
      .filter(Boolean)) {
      value = (value as Record<string, unknown> | undefined)?.[key];
    }
    return String(value);
  });

/** `Basic user pass` / `Basic user:pass` and `Digest user pass`, the clients' credential shorthand. */
const credentialsOf = (value: string) => {
  const match = /^(Basic|Digest)\s+([^\s:]+)(?:\s+|:)(\S+)$/i.exec(value);
  if (!match) return undefined;
  return { scheme: (match[1] as string).toLowerCase(), username: match[2] as string, password: match[3] as string };
};

/** Runs every request in order, as the editors do, answering Digest challenges with the tests' own client. */
export const runHttpFile = async (file: HttpFile, overrides: Record<string, string>): Promise<HttpFileResult[]> => {
  const variables = new Map([...file.variables, ...Object.entries(overrides)]);
  const responses = new Map<string, NamedResponse>();
  const results: HttpFileResult[] = [];
  for (const request of file.requests) {
    const url = substitute(request.url, variables, responses);
    const headers = new Headers();
    let digest: { username: string; password: string } | undefined;
    for (const [name, raw] of request.headers) {
      const value = substitute(raw, variables, responses);
      const credentials = name.toLowerCase() === 'authorization' ? credentialsOf(value) : undefined;
      if (credentials?.scheme === 'basic') {
        headers.set(name, `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`);
      } else if (credentials?.scheme === 'digest') {
        digest = credentials;
      } else headers.set(name, value);
    }
    const body = request.body === undefined ? undefined : substitute(request.body, variables, responses);
    const send = () => fetch(url, { method: request.method, headers, ...(body !== undefined && { body }) });
    let response = await send();
    const challenge = response.headers.get('www-authenticate');
    if (digest && response.status === 401 && challenge) {
      await response.arrayBuffer();
      const { pathname, search } = new URL(url);
      headers.set('authorization', digestAuthorization(challenge, request.method, `${pathname}${search}`, digest));
      response = await send();
    }
    const text = await response.text();
    if (request.name) {
      const isJson = response.headers.get('content-type')?.startsWith('application/json');
      responses.set(request.name, { body: isJson && text ? JSON.parse(text) : text, headers: response.headers });
    }
    results.push({ request, url, status: response.status, text, headers: response.headers });
  }
  return results;
};
