import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Authenticator } from '../../shared/auth/authenticator';
import { parseBasicChallenge } from '../../shared/auth/challenge';
import { parseDigestOffer } from '../../shared/auth/digest';
import { NonceCodec } from '../../shared/auth/nonce';
import { DynamoNonceLedger, DynamoSecretStore, DynamoUserStore } from '../../shared/store/dynamodb-auth-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let authenticator: Promise<Authenticator> | undefined;

/** The auth-table item name of the nonce HMAC key. */
export const NONCE_KEY_NAME = 'nonce-hmac-key';

/**
 * The nonce HMAC key: `NONCE_SECRET` locally, else a random key kept in the auth table, created by
 * the first container that asks and read once per container after that. The table, not Secrets
 * Manager: it already holds the HA1 digests, which are worth more to an attacker than this key, so
 * it protects the key as well as the key needs; and reading it takes the DynamoDB connection the
 * authorizer opens anyway, where Secrets Manager took a second SDK client (29 KB, about 8% of the
 * bundle) and a second TLS handshake on every cold start.
 */
const nonceSecret = async (client: DynamoDBDocumentClient, tableName: string): Promise<Buffer> => {
  if (process.env.NONCE_SECRET) return Buffer.from(process.env.NONCE_SECRET, 'utf8');
  const secret = await new DynamoSecretStore(client, tableName).getOrCreate(NONCE_KEY_NAME, () =>
    randomBytes(32).toString('base64'),
  );
  return Buffer.from(secret, 'utf8');
};

const digestOffer = () => {
  const offer = parseDigestOffer(process.env.DIGEST_ALGORITHM);
  if (!offer) throw new Error(`DIGEST_ALGORITHM "${process.env.DIGEST_ALGORITHM}" is not MD5, SHA-256 or both`);
  return offer;
};

const basicChallenge = () => {
  const placement = parseBasicChallenge(process.env.BASIC_CHALLENGE);
  if (!placement) throw new Error(`BASIC_CHALLENGE "${process.env.BASIC_CHALLENGE}" is not last, first or none`);
  return placement;
};

const build = async () => {
  const tableName = process.env.AUTH_TABLE_NAME;
  if (!tableName) throw new Error('AUTH_TABLE_NAME is not set');
  const client = createDocumentClient();
  const lifetime = Number(process.env.NONCE_LIFETIME_SECONDS ?? 300);
  return new Authenticator(
    new DynamoUserStore(client, tableName),
    new DynamoNonceLedger(client, tableName),
    // The table name stands for the deployment: a nonce signed for one does not pass on another.
    new NonceCodec(await nonceSecret(client, tableName), lifetime, undefined, tableName),
    { realm: process.env.AUTH_REALM ?? 'books', algorithms: digestOffer(), basicChallenge: basicChallenge() },
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
