import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULTS, toEnvironment } from '../../shared/config';
import { acknowledge } from './acknowledge';
import { type FunctionArchitecture, RouteFunction } from './route-function';
import { skipScanners } from './scanner-skips';

export interface ChangeEventsProps {
  /** The books table; its stream (NEW_AND_OLD_IMAGES) is the source of every event. */
  books: dynamodb.Table;
  stage: string;
  tracing: boolean;
  samLocal: boolean;
  architecture: FunctionArchitecture;
}

/** The event source mapping's settings, in one place for the stack and its tests (docs/operations.md, "Change events"). */
export const STREAM_MAPPING = {
  batchSize: 100,
  /** Retries of a failing batch after the first attempt; halves made by bisection do not count. */
  retryAttempts: 10,
  /** A record older than this is given up (to the dead-letter queue), leaving the rest of the stream's 24 hours to re-drive it. */
  maxRecordAge: Duration.hours(1),
} as const;

/** How long the bus's archive keeps every event it publishes, for a replay. */
export const ARCHIVE_RETENTION_DAYS = 30;

/** The events function's longest run: a batch of STREAM_MAPPING.batchSize records, in requests of 10, each resent at most twice. */
const EVENTS_FUNCTION_TIMEOUT_SECONDS = 30;

/**
 * Change events on AWS: the books table's stream, read by one function that maps each record with
 * the shared mapping (shared/events) and puts the CloudEvent on the bus this construct creates;
 * an archive on the bus for replays; and an encrypted queue that receives what the event source
 * mapping gives up on. The function's role reads this stream, puts events on this bus and sends to
 * this queue, nothing else.
 */
export class ChangeEvents extends Construct {
  readonly bus: events.EventBus;
  readonly archive: events.Archive;
  readonly deadLetters: sqs.Queue;
  readonly function: lambda.IFunction;

  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    const streamArn = props.books.tableStreamArn;
    if (!streamArn) throw new Error('the books table has no stream: change events need one (shared/store/tables.ts)');

    this.bus = new events.EventBus(this, 'Bus', { eventBusName: `book-library-${props.stage}` });
    this.archive = this.bus.archive('Archive', {
      description: 'Every change event of the book library, for replays (docs/operations.md)',
      eventPattern: { source: [DEFAULTS.eventSource] },
      retention: Duration.days(ARCHIVE_RETENTION_DAYS),
    });
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    skipScanners(this.deadLetters, [
      {
        id: 'CKV_AWS_27',
        reason:
          'Encrypted at rest with SQS-managed keys (SqsManagedSseEnabled); the check only reads KmsMasterKeyId, and a KMS key would add a key policy and per-request cost for a queue that holds batch descriptions, no book data',
      },
      {
        id: 'ES6000',
        reason:
          'This queue is the dead-letter destination of the change-events stream mapping; only an operator reads it, so there is nothing to redrive its messages to',
      },
    ]);
    acknowledge(
      this.deadLetters,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter destination of the change-events stream mapping; nothing consumes it but an operator, so it needs no dead-letter queue of its own.',
    );

    const fn = new RouteFunction(this, 'Publisher', {
      entry: 'functions/events/handler.ts',
      environment: toEnvironment({
        eventBusName: this.bus.eventBusName,
        eventSource: DEFAULTS.eventSource,
        eventTypePrefix: DEFAULTS.eventTypePrefix,
      }),
      tracing: props.tracing,
      samLocal: props.samLocal,
      architecture: props.architecture,
      timeoutSeconds: EVENTS_FUNCTION_TIMEOUT_SECONDS,
      invocation: {
        concurrency:
          'Invoked only by its stream mapping: one invocation at a time per stream shard (parallelization factor 1), so its concurrency is bounded by the table, not the account pool',
        deadLetters:
          'Invoked only by its stream mapping, whose own on-failure destination (an encrypted SQS queue) receives every batch it gives up on; a function dead-letter queue only receives failed asynchronous invocations, which never happen',
      },
    }).function;
    this.function = fn;

    // What the stream mapping reads the stream with, on this stream; ListStreams has no resource-level
    // permission in IAM (its Resource must be "*") and returns stream ARNs only, never a record.
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    acknowledge(
      fn.role ?? fn,
      'AwsSolutions-IAM5[Resource::*]',
      'dynamodb:ListStreams supports no resource-level permission (IAM requires Resource "*"); it is one of the four permissions Lambda documents for a DynamoDB stream mapping, and returns stream ARNs, no data.',
    );
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }));
    // Lambda sends a given-up batch's record to the destination with the function's role (SendMessage only);
    // SQS-managed encryption needs no KMS permission.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetters.queueArn] }),
    );

    const deadLetters = this.deadLetters;
    fn.addEventSourceMapping('Stream', {
      eventSourceArn: streamArn,
      // TRIM_HORIZON: the mapping starts at the oldest record the stream holds, so the writes made
      // between the stream's creation and the mapping's are published too; LATEST would drop them.
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: STREAM_MAPPING.batchSize,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: STREAM_MAPPING.retryAttempts,
      maxRecordAge: STREAM_MAPPING.maxRecordAge,
      parallelizationFactor: 1,
      onFailure: { bind: () => ({ destination: deadLetters.queueArn }) },
    });
  }
}
