import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { BOOKS_TABLE_ACCESS, type TableAccess } from '../../shared/store/table-access';
import {
  AUTH_TABLE,
  BOOKS_TABLE,
  ID_BLOCKS_PARTITION,
  type KeyAttribute,
  type TableDefinition,
} from '../../shared/store/tables';
import { skipScanners } from './scanner-skips';

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

  /**
   * Exactly the actions `use` sends (shared/store/table-access.ts): item actions on the table,
   * Query on its named indexes (no `index/*`), and the id-blocks item's own by its partition key.
   */
  grantBooks(fn: lambda.IFunction, use: keyof typeof BOOKS_TABLE_ACCESS) {
    const access: TableAccess = BOOKS_TABLE_ACCESS[use];
    const table = this.books.tableArn;
    const indexes = BOOKS_TABLE.indexes.map((index) => `${table}/index/${index.indexName}`);
    const onIndexes = new Set(access.indexes ?? []);
    const grant = (actions: readonly string[], resources: string[], conditions?: Record<string, unknown>) => {
      if (actions.length === 0) return;
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...actions], resources, ...(conditions && { conditions }) }),
      );
    };
    grant(
      access.table.filter((action) => !onIndexes.has(action)),
      [table],
    );
    grant(
      access.table.filter((action) => onIndexes.has(action)),
      [table, ...indexes],
    );
    grant(
      [...onIndexes].filter((action) => !access.table.includes(action)),
      indexes,
    );
    grant(access.idBlocksItem ?? [], [table], {
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [ID_BLOCKS_PARTITION] },
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
      ...(definition.streamView && { stream: dynamodb.StreamViewType[definition.streamView] }),
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
