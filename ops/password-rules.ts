import { randomBytes } from 'node:crypto';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/** A password that is the only factor: at least this many characters (NIST SP 800-63B-4). */
export const MIN_PASSWORD_LENGTH = 15;

/**
 * The fewest guesses the estimator may put a password at (docs/security.md, "Passwords"): a
 * hundred times its top band (10^10), since the stored HA1 is a fast hash, not a slow one.
 */
const MIN_GUESSES_LOG10 = 12;

/** Words of the service itself, which a guesser tries first beside the user's name and the realm. */
const SERVICE_WORDS = ['Book Library Service', 'book', 'books', 'library'] as const;

/** What would pass, said with every refusal. */
const WHAT_PASSES =
  'a phrase of four or more unrelated words, or random characters from a password manager, would pass';

/** zxcvbn's dictionaries (most common passwords, English words and names) and keyboard layouts. */
const estimator = new ZxcvbnFactory({
  translations: english.translations,
  graphs: common.adjacencyGraphs,
  dictionary: { ...common.dictionary, ...english.dictionary },
});

/** The user name in any case, spacing or l33t, forwards or backwards (the estimator also finds it, but only as one cheap part). */
const holdsName = (password: string, username: string) => {
  const fold = (text: string) =>
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[@4]/g, 'a')
      .replace(/3/g, 'e')
      .replace(/[1!|]/g, 'i')
      .replace(/0/g, 'o')
      .replace(/[5$]/g, 's')
      .replace(/7/g, 't')
      .replace(/[\s\p{P}\p{S}\p{M}]/gu, '');
  const name = fold(username);
  if (name.length < 3) return false;
  const folded = fold(password);
  return folded.includes(name) || folded.includes([...name].reverse().join(''));
};

export interface PasswordContext {
  username: string;
  realm: string;
}

/** Why `password` may not be a user's password, or undefined when it may (docs/security.md, "Passwords"). */
export const passwordProblem = (password: string, { username, realm }: PasswordContext): string | undefined => {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `a password has at least ${MIN_PASSWORD_LENGTH} characters; ${WHAT_PASSES}`;
  if (password.trim() === '') return `a password is more than white space; ${WHAT_PASSES}`;
  if (holdsName(password, username)) return `a password must not hold the user name; ${WHAT_PASSES}`;
  const estimate = estimator.check(password, [username, realm, ...SERVICE_WORDS]);
  if (estimate.guessesLog10 >= MIN_GUESSES_LOG10) return undefined;
  const why = estimate.feedback.warning ?? 'It is made of common words, names or patterns.';
  return `this password would be guessed in about 10^${Math.floor(estimate.guessesLog10)} tries, fewer than the 10^${MIN_GUESSES_LOG10} required: ${why} ${WHAT_PASSES}`;
};

/** A machine credential's secret: 256 random bits, base64url (docs/security.md, "Machine credentials"). */
export const generateSecret = (): string => randomBytes(32).toString('base64url');
