import { describe, expect, it } from 'vitest';
import { isValidHostHeader, originOf } from '../../shared/http/origin';

/** The Host grammar the local server holds requests to, and the origin links are built on. */
describe('Host header values (RFC 9110 §7.2)', () => {
  it.each([
    'localhost',
    '127.0.0.1:3000',
    'books.example',
    'books.example.',
    'abc123.execute-api.eu-west-1.amazonaws.com:443',
    '[::1]',
    '[::1]:3000',
    'under_score.example',
    'h:65535',
    'h:0',
    'x'.repeat(255),
  ])('takes %s', (host) => {
    expect(isValidHostHeader(host)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['a euro sign as Node reads its UTF-8 bytes', '\u00e2\u0082\u00ac'],
    ['a euro sign', '\u20ac'],
    ['a space', 'a b'],
    ['a path', 'a/b'],
    ['user info', 'user@host'],
    ['an empty port', 'h:'],
    ['a port past 65535', 'h:65536'],
    ['a port that is not digits', 'h:8o'],
    ['two colons', 'h:1:2'],
    ['an unbracketed IPv6 address', '::1'],
    ['a bracket left open', '[::1'],
    ['an empty label', 'a..b'],
    ['a label starting with a hyphen', '-a.b'],
    ['a control character', 'a\u0001b'],
    ['a name of 256 characters', 'x'.repeat(256)],
  ])('refuses %s', (_, host) => {
    expect(isValidHostHeader(host)).toBe(false);
  });
});

describe('origins', () => {
  it('https unless the gateway forwarded http; the port only when it is not the default', () => {
    expect(originOf({ protocol: 'https', host: 'a.example', port: '443' })).toBe('https://a.example');
    expect(originOf({ protocol: 'http', host: 'a.example', port: '443' })).toBe('http://a.example:443');
    expect(originOf({ protocol: 'http', host: '127.0.0.1', port: '80' })).toBe('http://127.0.0.1');
    expect(originOf({ protocol: 'ftp', host: 'a.example' })).toBe('https://a.example');
    expect(originOf({ protocol: 'https', host: 'a.example', port: '70000' })).toBe('https://a.example');
  });

  it('is undefined for a host no URL can carry', () => {
    expect(originOf({ protocol: 'https', host: 'a b' })).toBeUndefined();
    expect(originOf({ protocol: 'https', host: 'a.example:1' })).toBeUndefined();
  });
});
