/**
 * What an authenticated user may do: a reader reads books, an editor also creates and changes them,
 * an admin also deletes them. Each role holds every right of the roles before it in ROLES.
 */
const ROLES = ['reader', 'editor', 'admin'] as const;

export type Role = (typeof ROLES)[number];

/**
 * The role of LOCAL_USERS when LOCAL_ROLES is not set (local development only; npm start says so).
 * Everywhere else a missing or unknown role is a reader's: nothing is granted by default.
 */
export const LOCAL_DEFAULT_ROLE: Role = 'admin';

/** The roles as a tool or a setting's message names them. */
export const ROLE_CHOICES = 'reader, editor or admin';

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/** A stored role, or the least one when none (or none the code knows) is stored. */
export const roleOrReader = (value: unknown): Role => (isRole(value) ? value : 'reader');

/** A role name that is none of ROLES; the message names the three. */
export class UnknownRoleError extends Error {
  override readonly name = 'UnknownRoleError';
  constructor(readonly given: string) {
    super(`unknown role "${given}": a role is ${ROLE_CHOICES}`);
  }
}

export const parseRole = (text: string): Role => {
  if (isRole(text)) return text;
  throw new UnknownRoleError(text);
};

/** Whether a user holding `held` may do what needs `needed`. */
export const grants = (held: Role, needed: Role): boolean => ROLES.indexOf(held) >= ROLES.indexOf(needed);
