import { describe, expect, it } from 'vitest';
import { dataLossBetween, type Template } from '../../tools/upgrade/data-loss';

/** The template comparison (npm run test:template-diff) on hand-made template pairs. */
const booksTable = (properties: Record<string, unknown> = {}) => ({
  Type: 'AWS::DynamoDB::Table',
  DeletionPolicy: 'Retain',
  UpdateReplacePolicy: 'Retain',
  Properties: {
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    ...properties,
  },
});
const fn = { Type: 'AWS::Lambda::Function', Properties: { Runtime: 'nodejs22.x', Handler: 'index.handler' } };
const template = (resources: Record<string, unknown>): Template => ({ Resources: resources });
const released = template({ BooksTable: booksTable(), GetBook: fn });

describe('the template comparison', () => {
  it('fails on a table whose key schema changed: CloudFormation replaces it, empty', () => {
    const rekeyed = booksTable({
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
    });
    expect(dataLossBetween(released, template({ BooksTable: rekeyed, GetBook: fn }))).toStrictEqual([
      'BooksTable (AWS::DynamoDB::Table) would be replaced',
    ]);
  });

  it('fails on a deleted table, and on one whose logical id changed (deleted, then a new one created)', () => {
    expect(dataLossBetween(released, template({ GetBook: fn }))).toStrictEqual([
      'BooksTable (AWS::DynamoDB::Table) would be removed from the stack (orphaned)',
    ]);
    const withoutRetain = template({ BooksTable: { ...booksTable(), DeletionPolicy: 'Delete' } });
    expect(dataLossBetween(withoutRetain, template({ BooksTableRenamed: booksTable() }))).toStrictEqual([
      'BooksTable (AWS::DynamoDB::Table) would be deleted',
    ]);
  });

  it('fails on a queue replaced by a changed name', () => {
    const queue = (name: string) => ({ Type: 'AWS::SQS::Queue', Properties: { QueueName: name } });
    expect(dataLossBetween(template({ Events: queue('a') }), template({ Events: queue('b') }))).toStrictEqual([
      'Events (AWS::SQS::Queue) would be replaced',
    ]);
  });

  it('passes in-place updates: a stream enabled on the table, a new queue, a replaced function', () => {
    const streamed = booksTable({ StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
    const renamedFunction = { ...fn, Properties: { ...fn.Properties, FunctionName: 'renamed' } };
    const next = template({
      BooksTable: streamed,
      GetBook: renamedFunction,
      Events: { Type: 'AWS::SQS::Queue', Properties: {} },
    });
    expect(dataLossBetween(released, next)).toStrictEqual([]);
  });
});
