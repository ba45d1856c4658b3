import { MalformedAuthorizationError } from './errors';

/** Longer headers are refused before any parsing: no credential a client sends here needs more. */
export const MAX_AUTHORIZATION_LENGTH = 4096;

export type Credentials =
  | { scheme: 'basic'; token: string }
  | { scheme: 'digest'; params: ReadonlyMap<string, string> }
  | { scheme: 'other'; name: string };

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const TOKEN68 = /[A-Za-z0-9\-._~+/]+=*/y;
const SPACES = /[ \t]*/y;

/**
 * Parses `Authorization` per RFC 9110 §11 (auth-scheme, then token68 or auth-params with quoted
 * strings, escapes and commas inside quotes). Written by hand because no maintained library parses
 * request auth-params with these rules; names and scheme are case-insensitive, a repeated parameter
 * is an error.
 */
export const parseAuthorization = (header: string): Credentials => {
  if (header.length > MAX_AUTHORIZATION_LENGTH) throw new MalformedAuthorizationError('Authorization header too long');
  const reader = new Reader(header.trim());
  const scheme = reader.match(TOKEN)?.toLowerCase();
  if (!scheme) throw new MalformedAuthorizationError('Missing authentication scheme');
  if (scheme === 'basic') {
    reader.match(/ +/y);
    const token = reader.match(TOKEN68);
    if (!token || !reader.done()) throw new MalformedAuthorizationError('Malformed Basic credentials');
    return { scheme, token };
  }
  if (scheme !== 'digest') return { scheme: 'other', name: scheme };
  const params = parseParams(reader);
  checkEchoedParams(params);
  return { scheme, params };
};

/**
 * `cnonce` is sent back in `Authentication-Info`, a response header, so it must fit RFC 7616's
 * grammar there too: a quoted-string of visible ASCII, spaces and tabs (RFC 9110 §5.6.4). Its
 * obs-text (bytes above 0x7F) is refused: the echo could not carry such text as the client sent it.
 */
const ECHOED_TEXT = /^[\t\x20-\x7e]*$/;

const checkEchoedParams = (params: ReadonlyMap<string, string>) => {
  const cnonce = params.get('cnonce');
  if (cnonce !== undefined && !ECHOED_TEXT.test(cnonce)) {
    throw new MalformedAuthorizationError('cnonce outside the quoted-string grammar');
  }
};

const parseParams = (reader: Reader): Map<string, string> => {
  const params = new Map<string, string>();
  reader.match(SPACES);
  while (!reader.done()) {
    const name = reader.match(TOKEN)?.toLowerCase();
    if (!name) throw new MalformedAuthorizationError('Expected a parameter name');
    reader.match(SPACES);
    if (!reader.take('=')) throw new MalformedAuthorizationError(`Expected "=" after ${name}`);
    reader.match(SPACES);
    const value = reader.peek() === '"' ? reader.quoted() : reader.match(TOKEN);
    if (value === undefined) throw new MalformedAuthorizationError(`Missing value of ${name}`);
    if (params.has(name)) throw new MalformedAuthorizationError(`Duplicate parameter ${name}`);
    params.set(name, value);
    reader.match(SPACES);
    if (reader.done()) break;
    if (!reader.take(',')) throw new MalformedAuthorizationError('Expected "," between parameters');
    reader.match(/[ \t,]*/y);
  }
  if (params.size === 0) throw new MalformedAuthorizationError('Digest credentials without parameters');
  return params;
};

class Reader {
  private position = 0;
  constructor(private readonly text: string) {}

  done() {
    return this.position >= this.text.length;
  }

  peek() {
    return this.text[this.position];
  }

  take(char: string) {
    if (this.text[this.position] !== char) return false;
    this.position++;
    return true;
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.position += found[0].length;
    return found[0];
  }

  /** A quoted-string; backslash escapes the next character. */
  quoted(): string {
    this.position++; // opening quote
    let value = '';
    while (!this.done()) {
      const char = this.text[this.position++] as string;
      if (char === '"') return value;
      if (char === '\\') {
        if (this.done()) break;
        value += this.text[this.position++];
      } else {
        value += char;
      }
    }
    throw new MalformedAuthorizationError('Unterminated quoted string');
  }
}
