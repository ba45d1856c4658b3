import type { UnavailableCause } from './unavailable';

/** The shapes the OpenAPI modules build and the tests read. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  /** The role a user needs (docs/security.md, "Roles"): reader, editor or admin. */
  'x-required-role'?: string;
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
}

type Status = '200' | '201' | '204' | '304' | '400' | '404' | '409' | '412' | '413' | '415' | '422' | '428';

/** Request headers an operation reads, each described once in HEADER_PARAMETERS. */
export type RequestHeader = 'If-Match' | 'If-None-Match' | 'Idempotency-Key';

/** What a route's handler answers besides the statuses every route shares (see paths.ts). */
export interface OperationSpec {
  summary: string;
  /** What a client needs to know beyond the summary and the statuses. */
  description: string;
  body?: 'BookInput' | 'BookPatch';
  /** Media types the body may come in besides application/json. */
  alsoAccept?: readonly string[];
  query?: boolean;
  headers?: RequestHeader[];
  responses: Partial<Record<Status, Record<string, unknown>>>;
  /** Why the operation itself may answer 503 (paths.ts adds the authorizer's cause where credentials are needed). */
  unavailable?: readonly UnavailableCause[];
  tag?: string;
}
