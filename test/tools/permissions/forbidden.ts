import type { TableKind } from '../../../local/call-log';
import { ID_BLOCKS_PARTITION } from '../../../shared/store/tables';
import { isDeclared, TABLE_DEFINITIONS, type Target } from './declared-access';
import { evaluate } from './evaluate';
import { ACCOUNT, type FunctionRole, type PolicyStatement, type StackRoles } from './role-policies';

/** Actions whose requests name partition keys (IAM's `dynamodb:LeadingKeys`): probed once per representative key. */
const KEYED_ACTIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'ConditionCheckItem',
];
/** Actions that name no key: a condition on keys cannot stop them, only the resource can. */
const KEYLESS_ACTIONS = [
  'Scan',
  'PartiQLSelect',
  'PartiQLInsert',
  'PartiQLUpdate',
  'PartiQLDelete',
  'DescribeTable',
  'UpdateTable',
  'DeleteTable',
  'UpdateTimeToLive',
  'CreateBackup',
  'RestoreTableToPointInTime',
  'ExportTableToPointInTime',
];
const STREAM_ACTIONS = ['DescribeStream', 'GetShardIterator', 'GetRecords'];
/** The one key a condition names (the id-blocks item), and any other (a book range's). */
const REPRESENTATIVE_KEYS = [ID_BLOCKS_PARTITION, 'BOOKS#0'];
/** An index no declaration names (one a later release adds): `index/*` reaches it, a named grant does not. */
const UNDECLARED_INDEX = 'undeclaredIndex';

/** A call a function must never make: IAM must deny it. */
export interface Probe {
  function: string;
  action: string;
  resource: string;
  leadingKeys?: string[];
}

const resourcesOf = (roles: StackRoles): Array<{ resource: string; target: Target; actions: string[] }> => {
  const items = [...KEYED_ACTIONS, ...KEYLESS_ACTIONS];
  return [
    ...(Object.keys(roles.tables) as TableKind[]).flatMap((table) => {
      const arn = roles.tables[table];
      const indexes = [...TABLE_DEFINITIONS[table].indexes.map((index) => index.indexName), UNDECLARED_INDEX];
      return [
        { resource: arn, target: { kind: 'table' as const, table }, actions: items },
        ...indexes.map((indexName) => ({
          resource: `${arn}/index/${indexName}`,
          target: { kind: 'index' as const, table, indexName },
          actions: items,
        })),
        {
          resource: `${arn}/stream/2026-01-01T00:00:00.000`,
          target: { kind: 'stream' as const, table },
          actions: STREAM_ACTIONS,
        },
      ];
    }),
    {
      resource: `arn:aws:dynamodb:eu-west-1:${ACCOUNT}:table/another-service`,
      target: { kind: 'other' },
      actions: items,
    },
  ];
};

/**
 * Every probed action on every table, index, stream and a foreign table, once per representative
 * key where the action names keys, minus what the declaration grants `fn`: the calls it must never make.
 */
export const forbiddenCalls = (fn: string, roles: StackRoles): Probe[] =>
  resourcesOf(roles).flatMap(({ resource, target, actions }) =>
    actions.flatMap((name) => {
      const action = `dynamodb:${name}`;
      const keys = KEYED_ACTIONS.includes(name) ? REPRESENTATIVE_KEYS : [undefined];
      return keys
        .filter((key) => !isDeclared(fn, action, target, key))
        .map((key) => ({ function: fn, action, resource, ...(key !== undefined && { leadingKeys: [key] }) }));
    }),
  );

/** A statement of a role, by policy and position, as the template writes it. */
interface StatementRef {
  policy: string;
  statement: number;
  text: PolicyStatement;
}

/** A forbidden call the role allows, and the statements that allow it. */
export interface Overreach extends Probe {
  statements: StatementRef[];
}

const soleStatement = (role: FunctionRole, ref: StatementRef): FunctionRole => ({
  ...role,
  policies: [{ name: ref.policy, policy: { Version: '2012-10-17', Statement: [ref.text] } }],
});

const allowingStatements = async (probe: Probe, role: FunctionRole): Promise<StatementRef[]> => {
  const refs = role.policies.flatMap(({ name, policy }) =>
    policy.Statement.map((text, statement) => ({ policy: name, statement, text })),
  );
  const allowing: StatementRef[] = [];
  for (const ref of refs) if ((await evaluate(probe, soleStatement(role, ref))) === 'Allowed') allowing.push(ref);
  return allowing;
};

/** Which functions' roles to probe, and for which actions only (a change to one statement reaches only its own). */
export interface ProbeScope {
  functions?: readonly string[];
  actions?: readonly string[];
}

/** The forbidden calls each function's synthesized role would allow. */
export const overreaches = async (roles: StackRoles, scope: ProbeScope = {}): Promise<Overreach[]> => {
  const found: Overreach[] = [];
  for (const fn of scope.functions ?? Object.keys(roles.functions)) {
    const role = roles.functions[fn] as FunctionRole;
    const probes = forbiddenCalls(fn, roles).filter((probe) => scope.actions?.includes(probe.action) ?? true);
    for (const probe of probes) {
      if ((await evaluate(probe, role)) !== 'Allowed') continue;
      found.push({ ...probe, statements: await allowingStatements(probe, role) });
    }
  }
  return found;
};

/** One line: who may do what it must never do, and which statement lets it. */
export const describeOverreach = (overreach: Overreach): string =>
  `${overreach.function} may ${overreach.action} on ${overreach.resource}` +
  `${overreach.leadingKeys ? ` (partition key ${overreach.leadingKeys.join(', ')})` : ''}, ` +
  'which shared/store/table-access.ts does not declare for it; allowed by ' +
  overreach.statements.map((ref) => `${ref.policy} statement ${ref.statement} ${JSON.stringify(ref.text)}`).join('; ');
