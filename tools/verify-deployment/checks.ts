import { AUTHENTICATION_CHECKS } from './checks/authentication';
import { BOOK_CHECKS } from './checks/books';
import { ENTRY_POINT_CHECKS } from './checks/entry-points';
import { ERROR_CHECKS } from './checks/errors';
import { METHOD_CHECKS } from './checks/methods';
import type { Check } from './types';

/**
 * The checks, in the order they run. Each is data: an id, the name the report prints, the checks
 * it builds on, and whether it needs API Gateway's gateway responses (the 401 and its challenges,
 * Digest, which needs a challenge to answer, and the unknown-route 404), which
 * `--skip-gateway-responses` reports as skipped.
 */
export const CHECKS: readonly Check[] = [
  ...AUTHENTICATION_CHECKS,
  ...BOOK_CHECKS,
  ...ERROR_CHECKS,
  ...METHOD_CHECKS,
  ...ENTRY_POINT_CHECKS,
];
