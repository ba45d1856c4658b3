import { evaluate } from './evaluate';
import { ACCOUNT, type ChangeEventsRole } from './role-policies';

/** One call the change-events function's role is used for, and whether the role must allow it. */
export interface EventsCall {
  action: string;
  resource: string;
  /** Who makes it: the Lambda service polling the stream or sending dead letters, or the function's code. */
  by: 'event source mapping' | 'function' | 'runtime' | 'nobody';
}

const REGION = 'eu-west-1';

/**
 * The calls the change-events function's role is used for (functions/events, and the event source
 * mapping, which reads the stream and sends what it gives up on with the function's role), and
 * calls it must be refused: no table access, no other bus, queue or stream.
 */
export const eventsFunctionCalls = (reach: ChangeEventsRole): { allowed: EventsCall[]; forbidden: EventsCall[] } => {
  const table = reach.stream.split('/stream/')[0] as string;
  // The runtime writes to a stream of the function's own log group, the one its log statement names.
  const logGroup = reach.role.policies
    .flatMap(({ policy }) => policy.Statement)
    .find((statement) => [statement.Action].flat().includes('logs:PutLogEvents'))?.Resource;
  const logStream = `${String(logGroup).replace(/:\*$/, '')}:log-stream:2026/11/28/[$LATEST]0`;
  return {
    allowed: [
      ...['DescribeStream', 'GetRecords', 'GetShardIterator'].map(
        (action): EventsCall => ({ action: `dynamodb:${action}`, resource: reach.stream, by: 'event source mapping' }),
      ),
      // IAM authorizes ListStreams on "*" only: it names no stream.
      { action: 'dynamodb:ListStreams', resource: '*', by: 'event source mapping' },
      { action: 'sqs:SendMessage', resource: reach.deadLetters, by: 'event source mapping' },
      { action: 'events:PutEvents', resource: reach.bus, by: 'function' },
      { action: 'logs:CreateLogStream', resource: logStream, by: 'runtime' },
      { action: 'logs:PutLogEvents', resource: logStream, by: 'runtime' },
    ],
    forbidden: [
      ...['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan'].map(
        (action): EventsCall => ({ action: `dynamodb:${action}`, resource: table, by: 'nobody' }),
      ),
      {
        action: 'dynamodb:GetRecords',
        resource: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/other/stream/2026-01-01T00:00:00.000`,
        by: 'nobody',
      },
      { action: 'events:PutEvents', resource: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default`, by: 'nobody' },
      { action: 'sqs:SendMessage', resource: `arn:aws:sqs:${REGION}:${ACCOUNT}:other`, by: 'nobody' },
      { action: 'sqs:ReceiveMessage', resource: reach.deadLetters, by: 'nobody' },
      { action: 'sqs:DeleteMessage', resource: reach.deadLetters, by: 'nobody' },
    ],
  };
};

/** Each call the role decides wrongly: an allowed call denied, or a forbidden one allowed, as one line. */
export const eventsFunctionProblems = async (reach: ChangeEventsRole): Promise<string[]> => {
  const { allowed, forbidden } = eventsFunctionCalls(reach);
  const problems: string[] = [];
  const verdictOf = (call: EventsCall) => evaluate({ action: call.action, resource: call.resource }, reach.role);
  for (const call of allowed) {
    const verdict = await verdictOf(call);
    if (verdict !== 'Allowed')
      problems.push(`DENIED: the ${call.by} may not ${call.action} on ${call.resource} (${verdict})`);
  }
  for (const call of forbidden) {
    const verdict = await verdictOf(call);
    if (verdict === 'Allowed')
      problems.push(`ALLOWED: the change-events role may ${call.action} on ${call.resource}, which it must not`);
  }
  return problems;
};
