import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  AUTH_TABLE,
  BOOKS_TABLE,
  ID_BLOCKS_PARTITION,
  type KeyAttribute,
  type TableDefinition,
} from '../../shared/store/tables';
import { skipScanners } from './scanner-skips';

/**
 * What the book store sends, as IAM actions: Get and Query for reads; Put, Update and Delete
 * (inside TransactWriteItems too, which IAM authorises per item action) for writes. A test checks
 * this list against the commands in shared/store.
 */
export const BOOKS_TABLE_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  list: ['dynamodb:GetItem', 'dynamodb:Query'],
  write: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
} as const;

export type BooksTableAccess = keyof typeof BOOKS_TABLE_ACTIONS;

export interface ServiceTablesProps {
  /** Keep and protect the tables (and their data) when the stack is deleted. */
  retainData: boolean;
}

const attributeType = (key: KeyAttribute) =>
  key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER;

/** The books table and the auth table, laid out as shared/store/tables.ts defines them (as locally). */
export class ServiceTables extends Construct {
  readonly books: dynamodb.Table;
  readonly auth: dynamodb.Table;

  constructor(scope: Construct, id: string, props: ServiceTablesProps) {
    super(scope, id);
    this.books = this.table('BooksTable', BOOKS_TABLE, props.retainData);
    this.auth = this.table('AuthTable', AUTH_TABLE, props.retainData);
  }

  /** Only the item actions the store uses, on the table and its named indexes (no `index/*`). */
  grantBooks(fn: lambda.IFunction, access: BooksTableAccess) {
    const resources = [
      this.books.tableArn,
      ...BOOKS_TABLE.indexes.map((index) => `${this.books.tableArn}/index/${index.indexName}`),
    ];
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...BOOKS_TABLE_ACTIONS[access]], resources }));
    if (access === 'list') fn.addToRolePolicy(this.listVerdictStatement());
  }

  /**
   * The list's remembered verdict (shared/store/books/list-verdict.ts) is written on the id-blocks
   * item, and on nothing else: UpdateItem on the one partition key (IAM's dynamodb:LeadingKeys).
   */
  private listVerdictStatement() {
    return new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [this.books.tableArn],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [ID_BLOCKS_PARTITION] } },
    });
  }

  private table(id: string, definition: TableDefinition, protect: boolean) {
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: definition.partitionKey.name, type: attributeType(definition.partitionKey) },
      ...(definition.sortKey && {
        sortKey: { name: definition.sortKey.name, type: attributeType(definition.sortKey) },
      }),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: protect,
      removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      ...(definition.timeToLiveAttribute && { timeToLiveAttribute: definition.timeToLiveAttribute }),
    });
    skipScanners(table, [
      {
        id: 'CKV_AWS_119',
        reason:
          'Encrypted at rest with the AWS managed key (aws/dynamodb), logged in CloudTrail; a customer managed key would bill per key and per request and add a key policy to keep, for no reader it keeps out',
      },
    ]);
    for (const index of definition.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey) },
        ...(index.sortKey && { sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey) } }),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }
}
