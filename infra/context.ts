import { type BasicChallengePlacement, parseBasicChallenge } from '../shared/auth/challenge';
import { type DigestAlgorithm, parseDigestOffer } from '../shared/auth/digest';
import { type LockoutPolicy, parseLockoutPolicy } from '../shared/auth/lockout';
import { DEFAULTS, isValidRealm, REALM_RULE, SETTINGS } from '../shared/config';
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
  const realm = text('realm', DEFAULTS.realm);
  if (!isValidRealm(realm)) invalid('realm', realm, REALM_RULE);
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
  const publicBaseUrl = (): string | undefined => {
    try {
      return SETTINGS.publicBaseUrl.parse(optional('publicBaseUrl'), 'publicBaseUrl');
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
    publicBaseUrl: publicBaseUrl(),
    originSecret: optional('originSecret'),
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

/** The option names the stack reads: those `stackOptionsFromContext` asks for. */
export const knownContextOptions = (): readonly string[] => {
  const names = new Set<string>();
  stackOptionsFromContext((name) => {
    names.add(name);
    return undefined;
  });
  return [...names];
};

/**
 * Context the CDK itself keeps beside the stack's options: feature flags (`@aws-cdk/...`), its own
 * settings (`aws:cdk:...`), cached lookups (`availability-zones:account=...`, all with a colon), and
 * the notices `cdk acknowledge` records.
 */
const isCdksOwn = (name: string) => name.startsWith('@') || name.includes(':') || name === 'acknowledged-issue-numbers';

/** Edits (insert, delete, replace, swap two neighbours) from one name to another, case aside. */
const distance = (from: string, to: string): number => {
  const a = from.toLowerCase();
  const b = to.toLowerCase();
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i || j));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
};

/** The known name nearest to a mistyped one, when it is near enough to be what was meant. */
const nearestOption = (name: string, known: readonly string[] = knownContextOptions()): string | undefined => {
  let best: { option: string; edits: number } | undefined;
  for (const option of known) {
    const edits = distance(name, option);
    if (!best || edits < best.edits) best = { option, edits };
  }
  return best && best.edits <= Math.max(2, Math.floor(name.length / 3)) ? best.option : undefined;
};

/**
 * Refuses a context option the stack does not read: `-c stagee=prod` must stop synthesis rather
 * than deploy the dev stage without its protections. The CDK's own context keys are left alone.
 */
export const checkContextNames = (given: Readonly<Record<string, unknown>>) => {
  const known = knownContextOptions();
  const unknown = Object.keys(given).filter((name) => !isCdksOwn(name) && !known.includes(name));
  if (unknown.length === 0) return;
  const described = unknown.map((name) => {
    const near = nearestOption(name, known);
    return `unknown option ${name}${near ? `; did you mean ${near}?` : ''}`;
  });
  throw new InvalidContextError(
    `Context ${described.join('; ')} (the options are listed in docs/operations.md#deploying)`,
  );
};
