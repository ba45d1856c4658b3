import { describe, expect, it } from 'vitest';
import { originSecretDigest } from '../../shared/auth/viewer-address';
import { ConfigurationError, readSetting } from '../../shared/config';

/** ORIGIN_SECRET_SHA256: what the authorizer is given of a declared front's secret. */
describe('the origin secret setting', () => {
  it('is unset by default, and when empty', () => {
    expect(readSetting('originSecretSha256', {})).toBeUndefined();
    expect(readSetting('originSecretSha256', { ORIGIN_SECRET_SHA256: '' })).toBeUndefined();
  });

  it('takes a SHA-256 in hex, in either case, as lower case', () => {
    const digest = originSecretDigest('front-secret');
    expect(readSetting('originSecretSha256', { ORIGIN_SECRET_SHA256: digest.toUpperCase() })).toBe(digest);
  });

  it('refuses anything else, naming the variable and the form it expects', () => {
    for (const value of ['f'.repeat(63), 'f'.repeat(65), `${'f'.repeat(63)}g`, `x${'f'.repeat(64)}`, 'front-secret']) {
      const reading = () => readSetting('originSecretSha256', { ORIGIN_SECRET_SHA256: value });
      expect(reading, value).toThrow(ConfigurationError);
      expect(reading, value).toThrow(
        `ORIGIN_SECRET_SHA256 "${value}" is not valid: expected 64 hexadecimal digits (a SHA-256)`,
      );
    }
  });
});
