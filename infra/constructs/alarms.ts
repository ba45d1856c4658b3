import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULTS } from '../../shared/config';
import { DIMENSION, METRIC } from '../../shared/observability/metric-names';

export interface AlarmProps {
  api: apigateway.RestApi;
  /** Every function of the stack by its construct id, the authorizer included: each gets its throttle alarm. */
  functions: Readonly<Record<string, lambda.IFunction>>;
  authorizer: lambda.IFunction;
  /** SNS topic to notify on ALARM and OK; none means alarms are only visible in CloudWatch. */
  topicArn?: string;
  /** 5xx share of requests, in percent, that raises the alarm (default 1). */
  serverErrorPercent?: number;
  /** Accounts locked within 5 minutes that raise the lockout alarm (default 10). */
  lockoutsPerPeriod?: number;
  /** The change-events function and the queue its stream mapping gives up to. */
  changeEvents: { function: lambda.IFunction; deadLetters: sqs.IQueue };
}

/** The stream's oldest unpublished change older than this raises the iterator-age alarm. */
const ITERATOR_AGE_ALARM_MINUTES = 5;

const PERIOD = Duration.minutes(5);

/** An alarm raised by any count above zero in one period: each such event needs an operator's look. */
const onAnyIn = (group: Construct, id: string, alarmDescription: string, metric: cloudwatch.IMetric) =>
  new cloudwatch.Alarm(group, id, {
    alarmDescription,
    metric,
    threshold: 0,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });

/**
 * The alarms an operator needs first: clients getting 5xx, Lambda refusing invocations (throttles:
 * account or reserved concurrency exhausted; one alarm per function), the authorizer failing (which
 * turns every protected request into a 503), and accounts being locked out at a rate a few mistyped passwords do not
 * reach (someone guessing, or locking users out on purpose). Missing data counts as fine: no
 * traffic is not an outage.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: AlarmProps) {
    super(scope, id);
    this.alarms = serviceAlarms(this, props);
  }
}

const serviceAlarms = (group: Construct, props: AlarmProps) => {
  const requests = props.api.metricCount({ period: PERIOD, statistic: 'Sum' });
  const serverErrors = props.api.metricServerError({ period: PERIOD, statistic: 'Sum' });
  const threshold = props.serverErrorPercent ?? 1;
  const lockouts = props.lockoutsPerPeriod ?? 10;

  const alarms = [
    new cloudwatch.Alarm(group, 'ServerErrorRate', {
      alarmDescription: `More than ${threshold}% of API requests answered 5xx over 5 minutes`,
      metric: new cloudwatch.MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: PERIOD,
        label: '5xx rate (%)',
      }),
      threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    // One alarm per function, not one sum over all of them: an alarm on metric math may read at most
    // 10 metrics (a hard CloudWatch limit), and each route adds a function.
    ...Object.entries(props.functions).map(([name, fn]) =>
      onAnyIn(
        group,
        `${name}Throttles`,
        `The ${name} function was throttled (concurrency exhausted) in the last 5 minutes`,
        fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
      ),
    ),
    onAnyIn(
      group,
      'AuthorizerErrors',
      'The authorizer failed (not denied: failed) in the last 5 minutes; protected routes answer 503',
      props.authorizer.metricErrors({ period: PERIOD, statistic: 'Sum' }),
    ),
    new cloudwatch.Alarm(group, 'AccountLockouts', {
      alarmDescription:
        `${lockouts} or more accounts (known or not) were locked out by failed passwords in 5 minutes: ` +
        'someone is guessing; `npm run users -- list` shows the locked names',
      metric: new cloudwatch.Metric({
        namespace: DEFAULTS.metricsNamespace,
        metricName: METRIC.accountLockout,
        dimensionsMap: { [DIMENSION.service]: DEFAULTS.serviceName },
        period: PERIOD,
        statistic: 'Sum',
      }),
      threshold: lockouts,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    ...changeEventAlarms(group, props.changeEvents),
  ];

  if (props.topicArn) {
    const topic = sns.Topic.fromTopicArn(group, 'Topic', props.topicArn);
    for (const alarm of alarms) {
      alarm.addAlarmAction(new actions.SnsAction(topic));
      alarm.addOkAction(new actions.SnsAction(topic));
    }
  }
  return alarms;
};

/**
 * Change events falling behind (the stream's iterator age), not getting out (records the function
 * could not publish) and given up (batches in the dead-letter queue: their events are missing until
 * an operator re-drives them, docs/operations.md).
 */
const changeEventAlarms = (group: Construct, { function: fn, deadLetters }: AlarmProps['changeEvents']) => [
  onAnyIn(
    group,
    'ChangeEventsThrottles',
    'The change-events function was throttled (concurrency exhausted) in the last 5 minutes: events fall behind',
    fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
  ),
  new cloudwatch.Alarm(group, 'ChangeEventsIteratorAge', {
    alarmDescription: `Change events are more than ${ITERATOR_AGE_ALARM_MINUTES} minutes behind the books table's writes`,
    metric: fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
    threshold: Duration.minutes(ITERATOR_AGE_ALARM_MINUTES).toMilliseconds(),
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 5,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  }),
  onAnyIn(
    group,
    'ChangeEventsNotPublished',
    'Change events could not be put on the bus in the last 5 minutes (Lambda retries them)',
    new cloudwatch.Metric({
      namespace: DEFAULTS.metricsNamespace,
      metricName: METRIC.unpublishedChangeEvent,
      dimensionsMap: { [DIMENSION.service]: DEFAULTS.serviceName },
      period: PERIOD,
      statistic: 'Sum',
    }),
  ),
  onAnyIn(
    group,
    'ChangeEventsDeadLetters',
    'A batch of book changes was given up: its events were not published (docs/operations.md, re-drive)',
    deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
  ),
];
