import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Authenticator } from '../../shared/auth/authenticator';
import { NONCE_KEY_NAME, NonceCodec } from '../../shared/auth/nonce';
import { readLockoutPolicy, readSetting } from '../../shared/config';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoSecretStore } from '../../shared/store/auth/dynamodb-secret-store';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createAuthorizerDocumentClient } from '../../shared/store/dynamodb-client';

let authenticator: Promise<Authenticator> | undefined;

/**
 * The nonce HMAC key: `NONCE_SECRET` locally, else a random key kept in the auth table, created by
 * the first container that asks and read once per container after that. The table, not Secrets
 * Manager: it already holds the HA1 digests, which are worth more to an attacker than this key, so
 * it protects the key as well as the key needs; and reading it takes the DynamoDB connection the
 * authorizer opens anyway, where Secrets Manager took a second SDK client (29 KB, about 8% of the
 * bundle) and a second TLS handshake on every cold start.
 */
const nonceSecret = async (client: DynamoDBDocumentClient, tableName: string): Promise<Buffer> => {
  const configured = readSetting('nonceSecret');
  if (configured) return Buffer.from(configured, 'utf8');
  const secret = await new DynamoSecretStore(client, tableName).getOrCreate(NONCE_KEY_NAME, () =>
    randomBytes(32).toString('base64'),
  );
  return Buffer.from(secret, 'utf8');
};

const build = async () => {
  const tableName = readSetting('authTableName');
  const client = createAuthorizerDocumentClient();
  return new Authenticator(
    new DynamoUserStore(client, tableName),
    new DynamoNonceLedger(client, tableName),
    // The table name stands for the deployment: a nonce signed for one does not pass on another.
    new NonceCodec(await nonceSecret(client, tableName), readSetting('nonceLifetimeSeconds'), undefined, tableName),
    {
      realm: readSetting('realm'),
      algorithms: readSetting('digestAlgorithms'),
      basicChallenge: readSetting('basicChallenge'),
      lockout: readLockoutPolicy(),
    },
  );
};

/** The authorizer's composition root: one authenticator per container. */
export const getAuthenticator = (): Promise<Authenticator> => {
  authenticator ??= build().catch((error) => {
    authenticator = undefined; // try again on the next request rather than failing forever
    throw error;
  });
  return authenticator;
};
