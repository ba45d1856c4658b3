import type { AccountFailures } from './account-failures';
import type { DigestAlgorithm } from './digest';
import type { Role } from './roles';

/** A user as stored: HA1 per Digest algorithm for one realm, never the password. */
export interface StoredUser {
  username: string;
  realm: string;
  ha1: Record<DigestAlgorithm, string>;
  /** What the user may do; none stored (or one unknown) is a reader's. */
  role?: Role;
  /**
   * Changes with every change of the credential (password, role; a removal drops the item): an
   * admission checks it, so a change applies to requests in flight (docs/security.md).
   */
  version?: string;
  /**
   * A generated secret for a machine (docs/security.md, "Machine credentials"): too long to guess,
   * so its successes are let in without the guessing limit's write.
   */
  machine?: boolean;
}

/** What one read of an account name finds: its user, if one is stored, and its failure record, if any. */
export interface Account {
  /** The stored user, whatever its realm. */
  user?: StoredUser;
  failures?: AccountFailures;
  /** Which maps of the record the stored item holds (the store's note to itself, so a write can add to them). */
  stored?: { runs: boolean; signedIn: boolean };
}

/** The parts of an HTTP request authentication looks at. */
export interface AuthRequest {
  method: string;
  /** The path the client addressed, stage or base path included. */
  path: string;
  /**
   * This service's own origin (`https://<domain>`, a port when not the default): the gateway's
   * domain, never the client's Host. An absolute-form Digest `uri` must name it; without it none can.
   */
  origin?: string;
  /** Decoded query parameters, every value of each. */
  query: Record<string, string[] | undefined>;
  /**
   * The client's address as the gateway saw it (API Gateway's `requestContext.identity.sourceIp`,
   * the local server's socket): failures are counted per account and per client source.
   */
  sourceAddress?: string;
  /** The Authorization field, or every one the request carries when it repeats it. */
  authorization: string | readonly string[] | undefined;
}

export interface AuthDenial {
  ok: false;
  challenge: string;
  reason: string;
  /** This failure locked the account (counted by the lockout metric). */
  lockoutStarted?: boolean;
}

export type AuthResult =
  | {
      ok: true;
      username: string;
      scheme: 'basic' | 'digest';
      /** The user's role as admitted, a reader's for a user stored without one. */
      role: Role;
      /** For Digest: the `Authentication-Info` value (next nonce, server proof) the response carries. */
      authenticationInfo?: string;
    }
  | AuthDenial;
