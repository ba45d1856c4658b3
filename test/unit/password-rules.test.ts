import { describe, expect, it } from 'vitest';
import { generateSecret, MIN_PASSWORD_LENGTH, passwordProblem } from '../../admin/password-rules';

describe('passwords `users add` accepts', () => {
  it('refuses one shorter than 15 characters, counted as characters, not bytes', () => {
    expect(passwordProblem('short-pw1')).toContain('at least 15 characters');
    expect(passwordProblem('x'.repeat(MIN_PASSWORD_LENGTH - 1))).toContain('at least 15');
    expect(passwordProblem('é'.repeat(MIN_PASSWORD_LENGTH - 1))).toContain('at least 15');
    expect(passwordProblem('tall-violet-kettle')).toBeUndefined();
  });

  it('refuses one of the 10,000 most common passwords, in any case, and nothing it merely begins', () => {
    expect(passwordProblem('films+pic+galeries')).toContain('most common passwords');
    expect(passwordProblem('FILMS+PIC+GALERIES')).toContain('most common passwords');
    expect(passwordProblem('films+pic+galerie')).toBeUndefined();
  });

  it('generates machine secrets of 256 random bits', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) {
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
      expect(passwordProblem(secret)).toBeUndefined();
    }
  });
});
