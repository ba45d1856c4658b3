import { describe, expect, it } from 'vitest';
import { generateSecret, MIN_PASSWORD_LENGTH, passwordProblem } from '../../ops/password-rules';

const alice = { username: 'alice', realm: 'books' };

describe('passwords `users add` accepts', () => {
  it('refuses one shorter than 15 characters, counted as characters, not bytes', () => {
    expect(passwordProblem('short-pw1', alice)).toContain('at least 15 characters');
    expect(passwordProblem('x'.repeat(MIN_PASSWORD_LENGTH - 1), alice)).toContain('at least 15');
    expect(passwordProblem('é'.repeat(MIN_PASSWORD_LENGTH - 1), alice)).toContain('at least 15');
  });

  it.each([
    ['a sequence of digits', '123456789012345'],
    ['a repeated common word', 'passwordpassword'],
    ['one character repeated', 'aaaaaaaaaaaaaaa'],
    ['fifteen spaces', ' '.repeat(15)],
    ['a keyboard walk', 'qwertyuiopasdfgh'],
    ['a common password made long', 'iloveyou12345678'],
    ['the service and the year', 'booklibrary2024!'],
  ])('refuses %s, saying why and what would pass', (_what, password) => {
    const problem = passwordProblem(password, alice);
    expect(problem).toMatch(/tries|white space/);
    expect(problem).toContain('four or more unrelated words');
  });

  it.each(['alicealice', 'alicealicealice', 'ALICE-ecila-2024', 'A l i c e . s e c r e t', '@l1ce-purple-otter'])(
    'refuses the user name in any form: %s',
    (password) => {
      expect(passwordProblem(password.padEnd(MIN_PASSWORD_LENGTH, '-'), alice)).toMatch(/user name|tries/);
    },
  );

  it('accepts a phrase of unrelated words and a generated password', () => {
    expect(passwordProblem('glad lamp river stone', alice)).toBeUndefined();
    expect(passwordProblem('tall-violet-kettle-harbour', alice)).toBeUndefined();
    expect(passwordProblem('zq7-Lm2p-9xVv-Tr4k', alice)).toBeUndefined();
  });

  it('generates machine secrets of 256 random bits', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    // The estimator takes about half a second for each: one shows they pass.
    expect(passwordProblem([...secrets][0] as string, alice)).toBeUndefined();
  });
});
