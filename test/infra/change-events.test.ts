import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { ARCHIVE_RETENTION_DAYS, STREAM_MAPPING } from '../../infra/constructs/change-events';
import { DEFAULTS } from '../../shared/config';

/** Bundling skipped: these tests read the template, not the code (bundling.test.ts builds the function). */
const outdir = mkdtempSync(join(tmpdir(), 'change-events-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

describe('change events on AWS', () => {
  let template: Template;
  let resources: Resources;
  let ids: { table: string; fn: string; role: string; bus: string; queue: string };
  beforeAll(() => {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new BookLibraryStack(app, 'Events', {
      stage: 'dev',
      retainData: false,
      realm: 'books',
      publicReads: false,
      throttling: { rateLimit: 10, burstLimit: 20 },
    });
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
    const idOf = (construct: { node: { defaultChild?: unknown } }) =>
      stack.getLogicalId(construct.node.defaultChild as CfnResource);
    const fn = idOf(stack.changeEvents.function);
    ids = {
      table: idOf(stack.tables.books),
      fn,
      role: resources[fn]?.Properties.Role['Fn::GetAtt'][0],
      bus: idOf(stack.changeEvents.bus),
      queue: idOf(stack.changeEvents.deadLetters),
    };
  }, 120_000);

  it('streams the books table with both images of each change, and not the auth table', () => {
    expect(resources[ids.table]?.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const streamed = Object.values(resources).filter(
      (r) => r.Type === 'AWS::DynamoDB::Table' && r.Properties.StreamSpecification,
    );
    expect(streamed).toHaveLength(1);
  });

  it('maps the stream to the function: batch item failures, bisection, bounded retries and age, dead letters to the queue', () => {
    const mappings = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toEqual({
      FunctionName: { Ref: ids.fn },
      EventSourceArn: { 'Fn::GetAtt': [ids.table, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: STREAM_MAPPING.batchSize,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 3600,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.queue, 'Arn'] } } },
    });
  });

  it('creates the bus the function publishes to, archived for replays for the stated retention', () => {
    expect(resources[ids.bus]?.Properties).toEqual({ Name: 'book-library-dev' });
    expect(resources[ids.fn]?.Properties.Environment.Variables).toMatchObject({
      EVENT_BUS_NAME: { Ref: ids.bus },
      EVENT_SOURCE: DEFAULTS.eventSource,
    });
    const archives = Object.values(resources).filter((r) => r.Type === 'AWS::Events::Archive');
    expect(archives).toHaveLength(1);
    expect(archives[0]?.Properties).toMatchObject({
      SourceArn: { 'Fn::GetAtt': [ids.bus, 'Arn'] },
      RetentionDays: ARCHIVE_RETENTION_DAYS,
      EventPattern: { source: [DEFAULTS.eventSource] },
    });
    expect(ARCHIVE_RETENTION_DAYS).toBe(30);
    template.hasOutput('EventBusName', { Value: { Ref: ids.bus } });
    template.hasOutput('EventBusArn', { Value: { 'Fn::GetAtt': [ids.bus, 'Arn'] } });
  });

  it('keeps dead letters in an encrypted queue that refuses unencrypted transport', () => {
    expect(resources[ids.queue]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
    });
    const policies = Object.values(resources).filter((r) => r.Type === 'AWS::SQS::QueuePolicy');
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
    expect(policies.some((p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: ids.queue }]))).toBe(
      true,
    );
  });

  it('alarms on iterator age, unpublished events and dead letters', () => {
    const alarms = Object.values(resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => r.Properties);
    expect(alarms.find((a) => a.MetricName === 'IteratorAge')).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.fn } }],
      Statistic: 'Maximum',
      Threshold: 300_000,
    });
    expect(alarms.find((a) => a.MetricName === 'UnpublishedChangeEvents')).toMatchObject({
      Namespace: DEFAULTS.metricsNamespace,
      Dimensions: [{ Name: 'service', Value: DEFAULTS.serviceName }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarms.find((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      Threshold: 0,
    });
  });

  it('lets the function read this stream (and list streams), put events on this bus and send to this queue, nothing else', () => {
    const role = resources[ids.role]?.Properties ?? {};
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
    const statements = Object.values(resources)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === ids.role),
      )
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      )
      .map(({ Action, Resource }) => ({ Action: [Action].flat().sort(), Resource }));
    const logGroup = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::Logs::LogGroup' && id.startsWith('ChangeEventsPublisher'),
    )?.[0];
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          Resource: { 'Fn::GetAtt': [ids.table, 'StreamArn'] },
        },
        { Action: ['dynamodb:ListStreams'], Resource: '*' }, // IAM knows no narrower resource for it
        { Action: ['events:PutEvents'], Resource: { 'Fn::GetAtt': [ids.bus, 'Arn'] } },
        { Action: ['sqs:SendMessage'], Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] } },
      ]),
    );
    expect(statements).toHaveLength(5);
  });
});
