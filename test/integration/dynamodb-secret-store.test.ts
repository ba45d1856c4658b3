import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoSecretStore } from '../../shared/store/auth/dynamodb-secret-store';
import { createTestTables } from '../support/dynamodb';

describe('DynamoSecretStore (Dynoxide)', () => {
  let store: DynamoSecretStore;
  beforeAll(async () => {
    const tables = await createTestTables();
    store = new DynamoSecretStore(tables.documentClient, tables.names.auth);
  });

  it('creates a secret once and returns the same value to every later caller', async () => {
    const first = await store.getOrCreate('key-a', () => 'generated-1');
    const second = await store.getOrCreate('key-a', () => 'generated-2');
    expect(first).toBe('generated-1');
    expect(second).toBe('generated-1');
  });

  it('gives every container of a cold-start burst the one value that won the race', async () => {
    const values = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.getOrCreate('key-b', () => `candidate-${i}`)),
    );
    expect(new Set(values).size).toBe(1);
    expect(values[0]).toMatch(/^candidate-\d$/);
  });
});
