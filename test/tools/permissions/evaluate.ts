import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { RecordedCall } from '../../../local/call-log';
import { ACCOUNT, type FunctionRole, type PolicyStatement, type StackRoles } from './role-policies';

const LEADING_KEYS = 'dynamodb:LeadingKeys';

/** A call the function's role would not allow on AWS. */
export interface Denial {
  function: string;
  action: string;
  resource: string;
  leadingKeys?: string[];
  /** Why: IAM's verdict, or that the template has no such function. */
  verdict: string;
  /** The statement the role lacks, as it would be written into the policy. */
  missing: PolicyStatement;
}

/** The check could not evaluate a call (an action or resource IAM does not know): never a silent pass. */
class PermissionCheckError extends Error {
  override readonly name = 'PermissionCheckError';
}

/** The ARN a recorded call is authorised on: its table's (the stack's own name for it) or that index's. */
const resourceOf = (call: RecordedCall, roles: StackRoles): string => {
  const table = call.table ? roles.tables[call.table] : `arn:aws:dynamodb:eu-west-1:${ACCOUNT}:table/${call.tableName}`;
  return call.indexName ? `${table}/index/${call.indexName}` : table;
};

const mentionsLeadingKeys = (role: FunctionRole) => JSON.stringify(role.policies).includes(LEADING_KEYS);

/** A call as the evaluator needs it; the partition keys only where a condition of the role reads them. */
const requestOf = (call: RecordedCall, roles: StackRoles, role: FunctionRole | undefined) => ({
  function: call.function ?? '',
  action: call.action,
  resource: resourceOf(call, roles),
  ...(role && mentionsLeadingKeys(role) && call.leadingKeys && { leadingKeys: call.leadingKeys }),
});

type Request = ReturnType<typeof requestOf>;

const missingStatement = (request: Request): PolicyStatement => ({
  Effect: 'Allow',
  Action: request.action,
  Resource: request.resource,
  ...(request.leadingKeys && {
    Condition: { 'ForAllValues:StringEquals': { [LEADING_KEYS]: request.leadingKeys } },
  }),
});

/** IAM's verdict on one request under one role: `Allowed`, `ImplicitlyDenied` or `ExplicitlyDenied`. */
export const evaluate = async (
  request: Pick<Request, 'action' | 'resource' | 'leadingKeys'>,
  role: FunctionRole,
): Promise<string> => {
  const result = await runSimulation(
    {
      request: {
        principal: role.roleArn,
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        contextVariables: request.leadingKeys ? { [LEADING_KEYS]: request.leadingKeys } : {},
      },
      identityPolicies: role.policies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === 'error') {
    throw new PermissionCheckError(`cannot evaluate ${JSON.stringify(request)}: ${JSON.stringify(result.errors)}`);
  }
  return result.overallResult;
};

/**
 * Each distinct call a function made, evaluated against that function's role by an IAM policy
 * simulator; the calls nobody's function made (a test's set-up, a tool's) are not the roles' business.
 */
export const deniedCalls = async (calls: readonly RecordedCall[], roles: StackRoles): Promise<Denial[]> => {
  const distinct = new Map<string, Request>();
  for (const call of calls) {
    if (!call.function) continue;
    const request = requestOf(call, roles, roles.functions[call.function]);
    distinct.set(JSON.stringify(request), request);
  }
  const denials: Denial[] = [];
  for (const request of distinct.values()) {
    const role = roles.functions[request.function];
    const verdict = role ? await evaluate(request, role) : 'no such function in the template';
    if (verdict !== 'Allowed') denials.push({ ...request, verdict, missing: missingStatement(request) });
  }
  return denials;
};

/** One line per denial: who, what, on what, and the statement that would allow it. */
export const describeDenial = (denial: Denial): string =>
  `${denial.function} may not ${denial.action} on ${denial.resource}` +
  `${denial.leadingKeys ? ` (partition key ${denial.leadingKeys.join(', ')})` : ''}: ${denial.verdict}; ` +
  `its role lacks ${JSON.stringify(denial.missing)}`;

/** A grant with one action taken out: which function, statement and action. */
export interface Removal {
  function: string;
  policy: string;
  statement: number;
  action: string;
}

/** Every DynamoDB action of every Allow statement of every function's role, one at a time. */
export const dynamoDbRemovals = (roles: StackRoles): Removal[] =>
  Object.entries(roles.functions).flatMap(([fn, role]) =>
    role.policies.flatMap(({ name, policy }) =>
      policy.Statement.flatMap((statement, index) =>
        statement.Effect !== 'Allow'
          ? []
          : [statement.Action]
              .flat()
              .filter((action) => action.startsWith('dynamodb:'))
              .map((action) => ({ function: fn, policy: name, statement: index, action })),
      ),
    ),
  );

/** The roles with `removal`'s action taken out of its statement (a statement left with none is dropped). */
export const withoutAction = (roles: StackRoles, removal: Removal): StackRoles => {
  const role = roles.functions[removal.function] as FunctionRole;
  const policies = role.policies.map(({ name, policy }) => {
    if (name !== removal.policy) return { name, policy };
    const Statement = policy.Statement.flatMap((statement, index) => {
      if (index !== removal.statement) return [statement];
      const Action = [statement.Action].flat().filter((action) => action !== removal.action);
      return Action.length > 0 ? [{ ...statement, Action }] : [];
    });
    return { name, policy: { ...policy, Statement } };
  });
  return { ...roles, functions: { ...roles.functions, [removal.function]: { ...role, policies } } };
};

/**
 * The removals the calls do not notice: an action granted that no recorded call needs. Each is
 * either more than the function needs or a call no test makes; either way the check would not
 * catch that grant lagging the code.
 */
export const unnoticedRemovals = async (calls: readonly RecordedCall[], roles: StackRoles): Promise<Removal[]> => {
  const unnoticed: Removal[] = [];
  for (const removal of dynamoDbRemovals(roles)) {
    const own = calls.filter((call) => call.function === removal.function && call.action === removal.action);
    if ((await deniedCalls(own, withoutAction(roles, removal))).length === 0) unnoticed.push(removal);
  }
  return unnoticed;
};
