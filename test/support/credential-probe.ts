import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Built with the stack's BUNDLING by test/infra/bundling.test.ts: prints the credentials the bundled SDK resolves. */
const client = new DynamoDBClient({ region: 'eu-west-1' });
try {
  const { accessKeyId, sessionToken } = await client.config.credentials();
  console.log(JSON.stringify({ accessKeyId, sessionToken }));
} catch (error) {
  console.log(JSON.stringify({ error: (error as Error).name }));
}
