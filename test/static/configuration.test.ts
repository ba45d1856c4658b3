import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, DEFAULTS, ENV, readSetting, type SETTINGS, toEnvironment } from '../../shared/config';
import { parseSource, sourceFiles } from '../support/source-files';

const CONFIGURATION_MODULE = 'shared/config.ts';

/** Every place a file reaches the environment: `process.env`, `process['env']`, `const { env } = process`. */
const environmentReads = (file: string, text?: string): string[] => {
  const source = parseSource(file, text);
  const found: string[] = [];
  const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const isProcess = (node: ts.Node) => ts.isIdentifier(node) && node.text === 'process';
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === 'env') {
      found.push(at(node));
    } else if (
      ts.isElementAccessExpression(node) &&
      isProcess(node.expression) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === 'env'
    ) {
      found.push(at(node));
    } else if (
      ts.isVariableDeclaration(node) &&
      node.initializer &&
      isProcess(node.initializer) &&
      ts.isObjectBindingPattern(node.name)
    ) {
      found.push(at(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('configuration', () => {
  it('is read from the environment only by shared/config.ts, in functions/ and shared/', () => {
    const files = sourceFiles(['functions', 'shared']);
    expect(files).toContain(CONFIGURATION_MODULE);
    expect(files.filter((file) => file !== CONFIGURATION_MODULE).flatMap((file) => environmentReads(file))).toEqual([]);
    expect(environmentReads(CONFIGURATION_MODULE).length).toBeGreaterThan(0);
  });

  it('finds every way of reaching the environment', () => {
    const text = "const a = process.env.X;\nconst b = process['env'];\nconst { env } = process;\nconst c = other.env;";
    expect(environmentReads('shared/example.ts', text)).toEqual([
      'shared/example.ts:1',
      'shared/example.ts:2',
      'shared/example.ts:3',
    ]);
  });

  it('names each variable once', () => {
    const names = Object.values(ENV);
    expect(new Set(names).size).toBe(names.length);
    expect(ENV.booksTableName).toBe('BOOKS_TABLE_NAME');
  });

  it('gives the defaults when a variable is unset or empty, as sam local passes declared ones', () => {
    const empty = {
      AUTH_REALM: '',
      NONCE_LIFETIME_SECONDS: '',
      PUBLIC_READS: '',
      DIGEST_ALGORITHM: '',
      BASIC_CHALLENGE: '',
    };
    for (const env of [{}, empty]) {
      expect(readSetting('realm', env)).toBe(DEFAULTS.realm);
      expect(readSetting('nonceLifetimeSeconds', env)).toBe(DEFAULTS.nonceLifetimeSeconds);
      expect(readSetting('publicReads', env)).toBe(false);
      expect(readSetting('digestAlgorithms', env)).toEqual(['MD5']);
      expect(readSetting('basicChallenge', env)).toBe('last');
      expect(readSetting('serviceName', env)).toBe('book-library');
      expect(readSetting('metricsNamespace', env)).toBe('BookLibrary');
      expect(readSetting('dynamodbEndpoint', env)).toBeUndefined();
      expect(readSetting('nonceSecret', env)).toBeUndefined();
    }
  });

  it('parses what is set', () => {
    const env = {
      AUTH_REALM: 'staff',
      NONCE_LIFETIME_SECONDS: '60',
      PUBLIC_READS: 'true',
      DIGEST_ALGORITHM: 'sha-256',
      BASIC_CHALLENGE: 'none',
      BOOKS_TABLE_NAME: 'b',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
    };
    expect(readSetting('realm', env)).toBe('staff');
    expect(readSetting('nonceLifetimeSeconds', env)).toBe(60);
    expect(readSetting('publicReads', env)).toBe(true);
    expect(readSetting('digestAlgorithms', env)).toEqual(['SHA-256']);
    expect(readSetting('basicChallenge', env)).toBe('none');
    expect(readSetting('booksTableName', env)).toBe('b');
    expect(readSetting('dynamodbEndpoint', env)).toBe('http://127.0.0.1:8000');
  });

  it('refuses a value it cannot use, naming the variable', () => {
    const refused = (key: keyof typeof SETTINGS, env: Record<string, string>, message: string) => {
      expect(() => readSetting(key, env)).toThrow(ConfigurationError);
      expect(() => readSetting(key, env)).toThrow(message);
    };
    refused('booksTableName', {}, 'BOOKS_TABLE_NAME is not set');
    refused('authTableName', { AUTH_TABLE_NAME: '' }, 'AUTH_TABLE_NAME is not set');
    refused('nonceLifetimeSeconds', { NONCE_LIFETIME_SECONDS: 'soon' }, 'NONCE_LIFETIME_SECONDS "soon" is not valid');
    refused('nonceLifetimeSeconds', { NONCE_LIFETIME_SECONDS: '0' }, 'a positive whole number');
    refused('publicReads', { PUBLIC_READS: 'yes' }, 'PUBLIC_READS "yes" is not valid: expected "true" or "false"');
    refused('digestAlgorithms', { DIGEST_ALGORITHM: 'SHA-1' }, 'DIGEST_ALGORITHM "SHA-1" is not valid');
    refused(
      'basicChallenge',
      { BASIC_CHALLENGE: 'middle' },
      'BASIC_CHALLENGE "middle" is not valid: expected last, first or none',
    );
  });

  it('writes values back as the variables that read as the same values', () => {
    const values = {
      booksTableName: 'books-prod',
      realm: 'staff',
      nonceLifetimeSeconds: 120,
      publicReads: true,
      digestAlgorithms: ['SHA-256', 'MD5'] as const,
      basicChallenge: 'first' as const,
      nonceSecret: undefined,
    };
    const env = toEnvironment(values);
    expect(env).toEqual({
      BOOKS_TABLE_NAME: 'books-prod',
      AUTH_REALM: 'staff',
      NONCE_LIFETIME_SECONDS: '120',
      PUBLIC_READS: 'true',
      DIGEST_ALGORITHM: 'SHA-256,MD5',
      BASIC_CHALLENGE: 'first',
    });
    for (const [key, value] of Object.entries(values)) {
      if (value !== undefined) expect(readSetting(key as keyof typeof SETTINGS, env)).toEqual(value);
    }
  });
});
