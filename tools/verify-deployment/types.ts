import type { Credentials } from '../http-auth/digest';
import type { RunBooks } from './run-books';

/** What the operator asked for on the command line. */
export interface VerifyOptions {
  /** The base URL as given, without a trailing slash: `https://<api>.execute-api.<region>.amazonaws.com/prod`. */
  baseUrl: string;
  username: string;
  /** For `sam local start-api`, which applies none of the stack's gateway responses. */
  skipGatewayResponses: boolean;
  /** With no base URL given: where the local one came from, said when nothing answers there. */
  unreachableHint?: string;
  /** A browser origin the deployment lists for CORS: the preflight check expects its grant. */
  origin?: string;
  /** A user with the reader role: its read must pass and its write get 403. */
  reader?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  /** The whole body, read to the end of its transfer. */
  text: string;
}

export interface HttpRequest {
  method?: string;
  /** A path under the base URL (`/api/books?limit=1`), or an absolute URL the API wrote (a `Link`). */
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  /** The most of the body read (default ANSWER_LIMIT_BYTES, 1 MiB); past it the request fails as "answer too large". */
  maxBytes?: number;
}

/** The client every check sends with (http.ts builds it). */
export interface HttpClient {
  /** A target as the absolute URL it is sent to: a path goes under the base URL, an absolute URL stays. */
  urlOf: (target: string) => string;
  send: (request: HttpRequest) => Promise<HttpResponse>;
}

export type { Credentials } from '../http-auth/digest';

/** What every check sees: the client, the credentials, this run's books and what earlier checks learnt. */
export interface CheckContext {
  baseUrl: string;
  http: HttpClient;
  credentials: Credentials;
  books: RunBooks;
  /** Every Digest nonce a 401 has carried in this run, to tell a fresh one from a repeated one. */
  seenNonces: Set<string>;
  /** The CORS origin the operator named (`--origin`), if any. */
  origin?: string;
  /** The reader the operator named (`--reader`), if any. */
  reader?: Credentials;
}

/**
 * One black-box check. The list of them (checks.ts) is data: a name to print, what it builds on,
 * and whether it needs API Gateway's gateway responses, which `sam local start-api` does not apply.
 */
export interface Check {
  /** Short, stable: what `needs` refers to. */
  id: string;
  /** The line the report prints. */
  name: string;
  /** The 401 challenges and the unknown-route 404 exist only through the stack's gateway responses. */
  needsGatewayResponses: boolean;
  /** Checks that must have passed for this one to mean anything (skipped, with the reason, when one did not). */
  needs?: readonly string[];
  /** Throws a CheckFailure (or any error) to fail; may return a detail to print after PASS. */
  run: (context: CheckContext) => Promise<string | undefined>;
}

type Outcome = 'PASS' | 'FAIL' | 'SKIP';

export interface CheckResult {
  name: string;
  outcome: Outcome;
  /** Why it failed or was skipped; on a pass, what it saw. */
  detail?: string;
}
