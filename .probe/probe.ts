import { startDynamoDbLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import { createDocumentClient, createDynamoClient } from '../shared/store/dynamodb-client';
import { UpdateCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
const db = await startDynamoDbLocal();
try {
  await ensureTables(createDynamoClient(db.endpoint), { books: 'bbb', auth: 'aaa' });
  const c = createDocumentClient(db.endpoint);
  await c.send(new PutCommand({ TableName: 'bbb', Item: { pk: 'X', sk: 1, version: 3, title: 't' } }));
  try {
    await c.send(new UpdateCommand({ TableName: 'bbb', Key: { pk: 'X', sk: 1 }, UpdateExpression: 'SET title = :t ADD version :one',
      ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':t': 'u', ':v': 2, ':one': 1 }, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  } catch (e: any) { console.log('single', e.name, JSON.stringify(e.Item)); }
  try {
    await c.send(new UpdateCommand({ TableName: 'bbb', Key: { pk: 'Y', sk: 1 }, UpdateExpression: 'SET title = :t',
      ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':t': 'u' }, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  } catch (e: any) { console.log('missing', e.name, JSON.stringify(e.Item)); }
  const ok = await c.send(new UpdateCommand({ TableName: 'bbb', Key: { pk: 'X', sk: 1 }, UpdateExpression: 'SET title = :t ADD version :one',
      ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':t': 'u', ':v': 3, ':one': 1 }, ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  console.log('ok', JSON.stringify(ok.Attributes));
  try {
    await c.send(new TransactWriteCommand({ TransactItems: [
      { Update: { TableName: 'bbb', Key: { pk: 'X', sk: 1 }, UpdateExpression: 'SET title = :t', ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':t': 'w', ':v': 1 }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      { Put: { TableName: 'bbb', Item: { pk: 'Z', sk: 0 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
    ] }));
  } catch (e: any) { console.log('tx', e.name, JSON.stringify(e.CancellationReasons)); }
  await c.send(new PutCommand({ TableName: 'bbb', Item: { pk: 'Z', sk: 0, bookId: 5 } }));
  try {
    await c.send(new TransactWriteCommand({ TransactItems: [
      { Put: { TableName: 'bbb', Item: { pk: 'Q', sk: 0 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      { Put: { TableName: 'bbb', Item: { pk: 'Z', sk: 0 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
    ] }));
  } catch (e: any) { console.log('tx2', e.name, JSON.stringify(e.CancellationReasons)); }
} finally { await db.stop(); }
