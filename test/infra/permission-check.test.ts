import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall, TableKind } from '../../local/call-log';
import {
  deniedCalls,
  describeDenial,
  dynamoDbRemovals,
  unnoticedRemovals,
  withoutAction,
} from '../tools/permissions/evaluate';
import { type StackRoles, synthesizeRoles } from '../tools/permissions/role-policies';

/** One call per action and resource each function's role grants, with the partition key a condition names. */
const grantedCalls = (roles: StackRoles): RecordedCall[] =>
  Object.entries(roles.functions).flatMap(([fn, role]) =>
    role.policies.flatMap(({ policy }) =>
      policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => {
        const keys = statement.Condition?.['ForAllValues:StringEquals']?.['dynamodb:LeadingKeys'];
        return [statement.Action]
          .flat()
          .filter((action) => action.startsWith('dynamodb:'))
          .flatMap((action) =>
            [statement.Resource].flat().map((resource): RecordedCall => {
              const [tableArn, indexName] = resource.split('/index/');
              const table = (Object.keys(roles.tables) as TableKind[]).find((kind) => roles.tables[kind] === tableArn);
              return {
                function: fn,
                action,
                ...(table && { table }),
                tableName: String(tableArn),
                ...(indexName && { indexName }),
                leadingKeys: keys ? [keys].flat() : ['BOOKS#0'],
              };
            }),
          );
      }),
    ),
  );

describe('the permission check (npm run test:permissions)', { timeout: 180_000 }, () => {
  let roles: StackRoles;
  let calls: RecordedCall[];
  beforeAll(() => {
    roles = synthesizeRoles();
    calls = grantedCalls(roles);
  }, 180_000);

  it('allows every call the synthesized roles grant', async () => {
    expect(calls.length).toBeGreaterThan(20);
    expect(await deniedCalls(calls, roles)).toEqual([]);
    expect(await unnoticedRemovals(calls, roles)).toEqual([]);
  });

  it('fails when any one DynamoDB action is taken out of any grant, naming function, action, resource and statement', async () => {
    const removals = dynamoDbRemovals(roles);
    expect(removals).toHaveLength(20); // every (function, action) pair the next test lists, each once
    for (const removal of removals) {
      const denials = await deniedCalls(calls, withoutAction(roles, removal));
      const what = JSON.stringify(removal);
      expect(denials.length, what).toBeGreaterThan(0);
      for (const denial of denials) {
        expect(denial, what).toMatchObject({ function: removal.function, action: removal.action });
        expect(describeDenial(denial)).toContain(`${removal.function} may not ${removal.action} on arn:aws:dynamodb:`);
        expect(describeDenial(denial)).toContain(`its role lacks {"Effect":"Allow","Action":"${removal.action}"`);
      }
    }
  });

  it('names every granted action no call needs: each one a grant beyond least privilege', async () => {
    const removals = dynamoDbRemovals(roles);
    for (const removal of removals) {
      const others = calls.filter((call) => !(call.function === removal.function && call.action === removal.action));
      expect(await unnoticedRemovals(others, roles), JSON.stringify(removal)).toContainEqual(removal);
    }
  });

  it('grants each book function only its own use of the table', () => {
    const granted = (fn: string) =>
      [...new Set(calls.filter((call) => call.function === fn).map((call) => call.action.replace('dynamodb:', '')))]
        .sort()
        .join(' ');
    expect(granted('GetBook')).toBe('GetItem');
    expect(granted('ListBooks')).toBe('GetItem Query UpdateItem');
    expect(granted('CreateBook')).toBe('GetItem PutItem UpdateItem');
    expect(granted('ReplaceBook')).toBe('DeleteItem GetItem PutItem UpdateItem');
    expect(granted('PatchBook')).toBe('DeleteItem GetItem PutItem UpdateItem');
    expect(granted('DeleteBook')).toBe('DeleteItem GetItem');
    expect(granted('Authorizer')).toBe('GetItem PutItem UpdateItem');
    expect(calls.filter((call) => call.indexName).every((call) => call.function === 'ListBooks')).toBe(true);
  });

  it('lets the list and a create write the id-blocks item, and no other item', async () => {
    const update = (fn: string, key: string): RecordedCall => ({
      function: fn,
      action: 'dynamodb:UpdateItem',
      table: 'books',
      tableName: 'books',
      leadingKeys: [key],
    });
    expect(await deniedCalls([update('ListBooks', 'ID_BLOCKS')], roles)).toEqual([]);
    expect(await deniedCalls([update('CreateBook', 'ID_BLOCKS')], roles)).toEqual([]);
    const denied = await deniedCalls(
      [update('ListBooks', 'BOOKS#0'), update('CreateBook', 'BOOKS#0'), update('GetBook', 'ID_BLOCKS')],
      roles,
    );
    expect(denied.map((denial) => [denial.function, denial.verdict])).toEqual([
      ['ListBooks', 'ImplicitlyDenied'],
      ['CreateBook', 'ImplicitlyDenied'],
      ['GetBook', 'ImplicitlyDenied'],
    ]);
  });

  it('counts a call to a table the functions are not configured with, or by a function the stack lacks, as denied', async () => {
    const denied = await deniedCalls(
      [
        { function: 'GetBook', action: 'dynamodb:GetItem', tableName: 'other' },
        { function: 'NoSuchFunction', action: 'dynamodb:GetItem', table: 'books', tableName: 'books' },
        { action: 'dynamodb:DeleteTable', table: 'books', tableName: 'books' },
      ],
      roles,
    );
    expect(denied.map((denial) => denial.verdict)).toEqual(['ImplicitlyDenied', 'no such function in the template']);
  });
});
