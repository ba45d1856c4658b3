import type { FunctionRole, PolicyStatement, StackRoles } from './role-policies';

/** One grant of a role changed: which function, policy and statement, how, and the roles after. */
export interface GrantChange {
  function: string;
  policy: string;
  statement: number;
  change: string;
  /** The statement's DynamoDB actions: the only ones the change can let through. */
  actions: string[];
  roles: StackRoles;
}

const withStatement = (roles: StackRoles, fn: string, policyName: string, index: number, next: PolicyStatement) => {
  const role = roles.functions[fn] as FunctionRole;
  const policies = role.policies.map(({ name, policy }) =>
    name !== policyName
      ? { name, policy }
      : { name, policy: { ...policy, Statement: policy.Statement.map((old, at) => (at === index ? next : old)) } },
  );
  return { ...roles, functions: { ...roles.functions, [fn]: { ...role, policies } } };
};

/**
 * Wider stand-ins for one resource: an index's table, every index of its table, and anything. A
 * table's own ARN gains every index (`index/*`, as CDK's grantReadData writes it), or becomes `*`.
 */
const widenings = (resource: string): Array<{ change: string; resources: string[] }> => {
  const [table = resource, index] = resource.split('/index/');
  return [
    ...(index !== undefined ? [{ change: `${resource} -> its table`, resources: [table] }] : []),
    {
      change: `${resource} -> ${table}/index/*`,
      resources: index !== undefined ? [`${table}/index/*`] : [table, `${table}/index/*`],
    },
    { change: `${resource} -> *`, resources: ['*'] },
  ];
};

/** Every DynamoDB grant of every role with, in turn, each condition removed and each resource widened. */
export const grantChanges = (roles: StackRoles): GrantChange[] =>
  Object.entries(roles.functions).flatMap(([fn, role]) =>
    role.policies.flatMap(({ name, policy }) =>
      policy.Statement.flatMap((statement, index) => {
        const actions = [statement.Action].flat().filter((action) => action.startsWith('dynamodb:'));
        if (statement.Effect !== 'Allow' || actions.length === 0) return [];
        const at = { function: fn, policy: name, statement: index, actions };
        const resources = [statement.Resource].flat();
        const { Condition, ...unconditioned } = statement;
        return [
          ...(Condition
            ? [{ ...at, change: 'condition removed', roles: withStatement(roles, fn, name, index, unconditioned) }]
            : []),
          ...resources.flatMap((resource) =>
            widenings(resource).map(({ change, resources: wider }) => ({
              ...at,
              change,
              roles: withStatement(roles, fn, name, index, {
                ...statement,
                Resource: resources.flatMap((old) => (old === resource ? wider : [old])),
              }),
            })),
          ),
        ];
      }),
    ),
  );
