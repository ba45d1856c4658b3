import { DIGEST_ALGORITHMS, type DigestAlgorithm } from '../shared/auth/digest';
import type { BookLibraryStackProps } from './book-library-stack';

export class InvalidContextError extends Error {
  override readonly name = 'InvalidContextError';
}

/**
 * The stack's options from `cdk -c name=value` context (documented in app.ts and the README). A
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
  const digestAlgorithm = (): DigestAlgorithm => {
    const value = text('digestAlgorithm', 'MD5');
    return (DIGEST_ALGORITHMS as readonly string[]).includes(value)
      ? (value as DigestAlgorithm)
      : invalid('digestAlgorithm', value, DIGEST_ALGORITHMS.join(' or '));
  };
  const stage = text('stage', 'dev');
  if (!/^[A-Za-z0-9-]{1,32}$/.test(stage)) invalid('stage', stage, 'letters, digits and hyphens (at most 32)');

  return {
    stage,
    realm: text('realm', 'books'),
    digestAlgorithm: digestAlgorithm(),
    publicReads: flag('publicReads'),
    retainData: stage === 'prod' || flag('retainData'),
    throttling: {
      rateLimit: positiveNumber('throttleRate', '50'),
      burstLimit: positiveNumber('throttleBurst', '100'),
    },
    tracing: flag('tracing'),
    webAclArn: optional('webAclArn'),
    alarmTopicArn: optional('alarmTopicArn'),
    samLocal: flag('samLocal'),
  };
};
