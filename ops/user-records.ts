import { ha1 } from '../shared/auth/digest';
import { parseRole, type Role } from '../shared/auth/roles';
import type { StoredUser } from '../shared/auth/types';

/** What is stored for a user: HA1 for each Digest algorithm in the realm; the password itself is dropped. */
export const userRecord = (username: string, password: string, realm: string): StoredUser => ({
  username,
  realm,
  ha1: { MD5: ha1('MD5', username, realm, password), 'SHA-256': ha1('SHA-256', username, realm, password) },
});

/** A user name usable in both schemes: Basic forbids ':', Digest quoting makes '"' and '\' awkward. */
export const isValidUsername = (name: string) => /^[^\s:"\\]{1,128}$/u.test(name);

/**
 * Parses LOCAL_USERS: `name:password` pairs separated by commas (a password may contain ':' and
 * ';'). An empty password is refused, as is one that holds `;name:`, a second pair joined by the
 * wrong separator, which would otherwise become part of the first user's password unnoticed. The
 * messages name the user, never the password.
 */
export const parseUserList = (text: string): Array<{ username: string; password: string }> =>
  text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const colon = pair.indexOf(':');
      const username = colon < 0 ? '' : pair.slice(0, colon);
      if (!isValidUsername(username)) throw new Error(`LOCAL_USERS entry "${pair}" is not name:password`);
      const password = pair.slice(colon + 1);
      if (password === '') throw new Error(`LOCAL_USERS entry for "${username}" has an empty password`);
      if (/;\s*[^\s:"\\;]+:/u.test(password))
        throw new Error(
          `LOCAL_USERS entry for "${username}" holds ";name:" in its password: separate pairs with commas (name:password,name:password)`,
        );
      return { username, password };
    });

/**
 * Parses LOCAL_ROLES: `name=role` pairs separated by commas, each naming a user of `usernames` (the
 * LOCAL_USERS) once (roleOf says what a user not named gets). The messages name the entry and the roles.
 */
export const parseRoleList = (text: string, usernames: readonly string[]): Map<string, Role> => {
  const roles = new Map<string, Role>();
  for (const pair of text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)) {
    const equals = pair.lastIndexOf('=');
    const username = pair.slice(0, Math.max(equals, 0));
    if (equals < 0 || !usernames.includes(username))
      throw new Error(`LOCAL_ROLES entry "${pair}" is not name=role for a user of LOCAL_USERS`);
    if (roles.has(username)) throw new Error(`LOCAL_ROLES names "${username}" twice`);
    try {
      roles.set(username, parseRole(pair.slice(equals + 1)));
    } catch (error) {
      throw new Error(`LOCAL_ROLES entry for "${username}": ${(error as Error).message}`, { cause: error });
    }
  }
  return roles;
};

/** The role LOCAL_ROLES gives a user; one it does not name is a reader (nothing granted by default). */
export const roleOf = (roles: ReadonlyMap<string, Role>, username: string): Role => roles.get(username) ?? 'reader';
