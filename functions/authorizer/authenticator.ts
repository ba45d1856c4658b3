import { Authenticator } from '../../shared/auth/authenticator';
import type { DigestAlgorithm } from '../../shared/auth/digest';
import { NonceCodec } from '../../shared/auth/nonce';
import { DynamoNonceLedger, DynamoUserStore } from '../../shared/store/dynamodb-auth-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let authenticator: Promise<Authenticator> | undefined;

/**
 * The nonce secret: `NONCE_SECRET` locally, else the stack's Secrets Manager secret, read once per
 * container. The client is imported on demand so it costs nothing where the variable is set.
 */
const nonceSecret = async (): Promise<Buffer> => {
  if (process.env.NONCE_SECRET) return Buffer.from(process.env.NONCE_SECRET, 'utf8');
  const secretId = process.env.NONCE_SECRET_ARN;
  if (!secretId) throw new Error('NONCE_SECRET or NONCE_SECRET_ARN must be set');
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error('The nonce secret is empty');
  return Buffer.from(SecretString, 'utf8');
};

const build = async () => {
  const tableName = process.env.AUTH_TABLE_NAME;
  if (!tableName) throw new Error('AUTH_TABLE_NAME is not set');
  const client = createDocumentClient();
  const lifetime = Number(process.env.NONCE_LIFETIME_SECONDS ?? 300);
  return new Authenticator(
    new DynamoUserStore(client, tableName),
    new DynamoNonceLedger(client, tableName),
    new NonceCodec(await nonceSecret(), lifetime),
    {
      realm: process.env.AUTH_REALM ?? 'books',
      algorithm: (process.env.DIGEST_ALGORITHM === 'SHA-256' ? 'SHA-256' : 'MD5') satisfies DigestAlgorithm,
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
