import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { migrateLegacyUsers } from '../../tools/legacy-users';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/** `npm run users -- migrate`: users kept under the earlier `USER#<name>` keys move to today's items. */
describe('moving users from the earlier key layout', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let client: ReturnType<typeof createPatientDocumentClient>;
  beforeAll(async () => {
    tables = await createTestTables();
    client = createPatientDocumentClient(tables.endpoint);
  });

  const legacy = (username: string, ha1: string) => ({
    pk: `USER#${username}`,
    username,
    realm: 'books',
    ha1Md5: `${ha1}-md5`,
    ha1Sha256: `${ha1}-sha256`,
    failRun: 5,
    failVersion: 5,
  });

  it('copies each user once and keeps one added anew since; the earlier items stay until removeEarlier', async () => {
    const users = new DynamoUserStore(client, tables.names.auth);
    for (const item of [legacy('ann', 'old'), legacy('ben', 'old')]) {
      await client.send(new PutCommand({ TableName: tables.names.auth, Item: item }));
    }
    await users.put({ username: 'ben', realm: 'books', ha1: { MD5: 'new-md5', 'SHA-256': 'new-sha256' } });

    expect(await migrateLegacyUsers(client, tables.names.auth)).toEqual({ moved: ['ann'], kept: ['ben'] });
    const earlier = async (pk: string) =>
      (await client.send(new GetCommand({ TableName: tables.names.auth, Key: { pk } }))).Item;
    // The version before reads only these: a copy made before deploying leaves it working.
    expect((await earlier('USER#ann'))?.ha1Md5).toBe('old-md5');
    expect(await users.get('ann')).toEqual({
      username: 'ann',
      realm: 'books',
      ha1: { MD5: 'old-md5', 'SHA-256': 'old-sha256' },
    });
    expect((await users.get('ben'))?.ha1.MD5).toBe('new-md5');
    expect((await users.account('ann')).failures).toBeUndefined(); // the old lockout does not move
    const removal = await migrateLegacyUsers(client, tables.names.auth, { removeEarlier: true });
    expect({ moved: removal.moved, kept: removal.kept.sort() }).toEqual({ moved: [], kept: ['ann', 'ben'] });
    for (const pk of ['USER#ann', 'USER#ben']) expect(await earlier(pk)).toBeUndefined();
    expect(await users.get('ann')).toBeDefined();
    expect(await migrateLegacyUsers(client, tables.names.auth)).toEqual({ moved: [], kept: [] });
  });
});
