import { beforeAll, describe, expect, it } from 'vitest';
import { eventsFunctionCalls, eventsFunctionProblems } from '../tools/permissions/events-function';
import { type ChangeEventsRole, type PolicyStatement, synthesizeRoles } from '../tools/permissions/role-policies';

/** The role with its statements rewritten by `edit`. */
const withStatements = (reach: ChangeEventsRole, edit: (statements: PolicyStatement[]) => PolicyStatement[]) => ({
  ...reach,
  role: {
    ...reach.role,
    policies: reach.role.policies.map(({ name, policy }) => ({
      name,
      policy: { ...policy, Statement: edit(policy.Statement) },
    })),
  },
});

describe('the change-events function in the permission check (npm run test:permissions)', { timeout: 120_000 }, () => {
  let reach: ChangeEventsRole;
  beforeAll(() => {
    const roles = synthesizeRoles();
    if (!roles.changeEvents) throw new Error('the stack has no change-events function');
    reach = roles.changeEvents;
  }, 120_000);

  it('allows each declared call of the function and its stream mapping, and denies each forbidden one', async () => {
    const { allowed, forbidden } = eventsFunctionCalls(reach);
    expect(allowed.map((call) => call.action)).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'sqs:SendMessage',
      'events:PutEvents',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(forbidden.length).toBeGreaterThan(5);
    expect(await eventsFunctionProblems(reach)).toEqual([]);
  });

  it('names the call a missing grant denies', async () => {
    for (const action of ['dynamodb:GetRecords', 'events:PutEvents', 'sqs:SendMessage']) {
      const without = withStatements(reach, (statements) =>
        statements.map((s) => ({ ...s, Action: [s.Action].flat().filter((a) => a !== action) })),
      );
      const problems = await eventsFunctionProblems(without);
      expect(problems, action).toHaveLength(1);
      expect(problems[0]).toMatch(
        new RegExp(`^DENIED: the (function|event source mapping) may not ${action} on arn:aws:`),
      );
    }
  });

  it('names each forbidden call a broader grant would allow: the table, another bus, another queue', async () => {
    const broader = withStatements(reach, (statements) => [
      ...statements,
      { Effect: 'Allow', Action: ['dynamodb:PutItem', 'events:PutEvents', 'sqs:SendMessage'], Resource: '*' },
    ]);
    const problems = await eventsFunctionProblems(broader);
    expect(
      problems.some((p) => p.startsWith('ALLOWED: the change-events role may dynamodb:PutItem on arn:aws:dynamodb:')),
    ).toBe(true);
    expect(
      problems.some((p) => p.includes('events:PutEvents on arn:aws:events:eu-west-1:123456789012:event-bus/default')),
    ).toBe(true);
    expect(problems.some((p) => p.includes('sqs:SendMessage on arn:aws:sqs:eu-west-1:123456789012:other'))).toBe(true);
  });
});
