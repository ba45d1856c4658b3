import { type BasicChallengePlacement, parseBasicChallenge } from '../shared/auth/challenge';
import { type DigestAlgorithm, parseDigestOffer } from '../shared/auth/digest';
import { type LockoutPolicy, parseLockoutPolicy } from '../shared/auth/lockout';
import { DEFAULTS, SETTINGS } from '../shared/config';
import type { BookLibraryStackProps } from './book-library-stack';
import { type FunctionArchitecture, machineArchitecture } from './constructs/route-function';

export class InvalidContextError extends Error {
  override readonly name = 'InvalidContextError';
}

/**
 * The stack's options from `cdk -c name=value` context (documented in docs/operations.md). A
 * mistyped option stops synthesis with its name, rather than deploying NaN or a silent default.
 */
export const stackOptionsFromContext = (tryGetContext: (name: string) => unknown): BookLibraryStackProps => {
  const text = (name: string, fallback: string) => String(tryGetContext(name) ?? fallback);
  const optional = (name: string) => text(name, '') || undefined;
  const invalid = (name: string, value: string, expected: string): never => {
    throw new InvalidContextError(`Context option ${name}="${value}" is not valid: expected ${expected}`);
  };
  const positiveNumber = (name: string, fallback: string) => {
    const value = text(name, fallback);
    const number = Number(value);
    return Number.isFinite(number) && number > 0 ? number : invalid(name, value, 'a positive number');
  };
  const flag = (name: string) => {
    const value = text(name, 'false');
    return value === 'true' || (value !== 'false' && invalid(name, value, '"true" or "false"'));
  };
  const digestAlgorithms = (): readonly DigestAlgorithm[] => {
    const value = text('digestAlgorithm', '');
    return parseDigestOffer(value) ?? invalid('digestAlgorithm', value, '"MD5", "SHA-256" or "MD5,SHA-256"');
  };
  const basicChallenge = (): BasicChallengePlacement => {
    const value = text('basicChallenge', '');
    return parseBasicChallenge(value) ?? invalid('basicChallenge', value, '"last", "first" or "none"');
  };
  // The realm is written into the gateway's static challenge (a quoted header value inside a
  // single-quoted mapping expression) and into every Digest challenge as a quoted string.
  const realm = text('realm', DEFAULTS.realm);
  if (!/^[\x20-\x7e]{1,64}$/.test(realm) || /["'\\]/.test(realm)) {
    invalid('realm', realm, 'printable ASCII without quotes or backslashes (at most 64 characters)');
  }
  // Under `sam local` the functions run in containers on this machine: its own processor avoids an
  // emulator (SAM picks the image and the runtime emulator by the template's architecture).
  const samLocal = flag('samLocal');
  const architecture = (): FunctionArchitecture => {
    const value = text('architecture', samLocal ? machineArchitecture() : 'arm64');
    return value === 'arm64' || value === 'x86_64' ? value : invalid('architecture', value, '"arm64" or "x86_64"');
  };
  const lockout = (): LockoutPolicy => {
    try {
      return parseLockoutPolicy(optional, (field) => field);
    } catch (error) {
      throw new InvalidContextError(`Context option ${(error as Error).message}`, { cause: error });
    }
  };
  const listMaxBooks = () => {
    const value = text('listMaxBooks', String(DEFAULTS.listMaxBooks));
    const cap = Number(value);
    return Number.isSafeInteger(cap) && cap > 0 ? cap : invalid('listMaxBooks', value, 'a positive whole number');
  };
  const corsAllowedOrigins = (): readonly string[] => {
    try {
      return SETTINGS.corsAllowedOrigins.parse(optional('corsAllowedOrigins'), 'corsAllowedOrigins');
    } catch (error) {
      throw new InvalidContextError(`Context option ${(error as Error).message}`, { cause: error });
    }
  };
  const stage = text('stage', 'dev');
  if (!/^[A-Za-z0-9-]{1,32}$/.test(stage)) invalid('stage', stage, 'letters, digits and hyphens (at most 32)');

  return {
    stage,
    realm,
    digestAlgorithms: digestAlgorithms(),
    lockout: lockout(),
    basicChallenge: basicChallenge(),
    publicReads: flag('publicReads'),
    corsAllowedOrigins: corsAllowedOrigins(),
    requireIfMatch: flag('requireIfMatch'),
    retainData: stage === 'prod' || flag('retainData'),
    throttling: {
      rateLimit: positiveNumber('throttleRate', '50'),
      burstLimit: positiveNumber('throttleBurst', '100'),
    },
    tracing: flag('tracing'),
    webAclArn: optional('webAclArn'),
    alarmTopicArn: optional('alarmTopicArn'),
    samLocal,
    bufferedList: flag('bufferedList'),
    architecture: architecture(),
    listMaxBooks: listMaxBooks(),
  };
};
