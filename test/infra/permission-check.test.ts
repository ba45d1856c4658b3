import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../local/call-log';
import { checkRoles } from '../tools/permissions/check';
import { declaredAccess, widerThanUsed } from '../tools/permissions/declared-access';
import {
  deniedCalls,
  describeDenial,
  dynamoDbRemovals,
  unnoticedRemovals,
  withoutAction,
} from '../tools/permissions/evaluate';
import { forbiddenCalls } from '../tools/permissions/forbidden';
import { grantChanges } from '../tools/permissions/grant-changes';
import { MUST_RECORD, unrecordedCalls } from '../tools/permissions/must-record';
import { RECORDED_CALLS_FIXTURE, readCalls } from '../tools/permissions/recorded-calls';
import { type StackRoles, synthesizeRoles } from '../tools/permissions/role-policies';

/**
 * The check `npm run test:permissions` runs, fed the calls a full run recorded (one of each kind,
 * RECORDED_CALLS_FIXTURE; `npm run test:permissions -- --save-fixture` rewrites it), against the
 * roles the stack synthesizes, and against those roles with one grant changed at a time.
 */
describe('the permission check (npm run test:permissions)', { timeout: 300_000 }, () => {
  let roles: StackRoles;
  let calls: RecordedCall[];
  beforeAll(() => {
    roles = synthesizeRoles();
    calls = readCalls(RECORDED_CALLS_FIXTURE);
  }, 180_000);

  it('passes the recorded calls against the synthesized roles, with nothing to report', async () => {
    expect(new Set(calls.map((call) => call.function)).size).toBe(7);
    expect(await checkRoles(calls, roles)).toEqual([]);
  });

  it('fails when any one DynamoDB action is taken out of any grant, naming function, action, resource and statement', async () => {
    const removals = dynamoDbRemovals(roles);
    expect(removals).toHaveLength(20); // every (function, action) pair the test below lists, each once
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

  it('fails when any condition of any grant is removed or any resource widened, naming function and statement', async () => {
    const changes = grantChanges(roles);
    // 9 DynamoDB statements: 2 conditions, 9 table resources (2 widenings each), 3 indexes (3 each).
    expect(changes).toHaveLength(2 + 9 * 2 + 3 * 3);
    for (const change of changes) {
      const what = `${change.function} statement ${change.statement}: ${change.change}`;
      const findings = await checkRoles(calls, change.roles, { functions: [change.function], actions: change.actions });
      expect(findings.length, what).toBeGreaterThan(0);
      expect(
        findings.every((finding) => finding.function === change.function),
        what,
      ).toBe(true);
      const named = findings.some(
        (finding) =>
          (finding.kind === 'NEVER DECLARED' &&
            finding.statement?.policy === change.policy &&
            finding.statement.statement === change.statement) ||
          // An index's grant moved to its table no longer reaches the index: the recorded Query is denied.
          (finding.kind === 'DENIED' &&
            change.actions.some((action) => finding.line.includes(` may not ${action} on `))),
      );
      expect(named, `${what}: ${findings.map((finding) => finding.line).join('\n')}`).toBe(true);
    }
  });

  it('probes the calls no function may make: book writes from the list and create roles, the other table, any write from GetBook', () => {
    const probes = (fn: string) => forbiddenCalls(fn, roles).map((probe) => ({ ...probe, function: undefined }));
    const call = (action: string, table: 'books' | 'auth', key?: string) => ({
      function: undefined,
      action: `dynamodb:${action}`,
      resource: roles.tables[table],
      ...(key && { leadingKeys: [key] }),
    });
    for (const fn of ['ListBooks', 'CreateBook']) {
      for (const write of ['UpdateItem', 'PutItem', 'DeleteItem'].filter(
        (a) => !(fn === 'CreateBook' && a === 'PutItem'),
      )) {
        expect(probes(fn), `${fn} ${write}`).toContainEqual(call(write, 'books', 'BOOKS#0'));
      }
      expect(probes(fn)).not.toContainEqual(call('UpdateItem', 'books', 'ID_BLOCKS'));
    }
    for (const action of ['GetItem', 'PutItem', 'UpdateItem', 'Query']) {
      expect(probes('Authorizer')).toContainEqual(call(action, 'books', 'BOOKS#0'));
      for (const fn of ['GetBook', 'ListBooks', 'CreateBook', 'ReplaceBook', 'PatchBook', 'DeleteBook']) {
        expect(probes(fn), `${fn} ${action} auth`).toContainEqual(call(action, 'auth', 'BOOKS#0'));
      }
    }
    for (const write of ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'PartiQLUpdate']) {
      expect(probes('GetBook')).toContainEqual(
        call(write, 'books', write.startsWith('PartiQL') ? undefined : 'ID_BLOCKS'),
      );
    }
  });

  it('fails when a declaration is wider than the recorded calls use: a write to every item, an index never read', () => {
    expect(widerThanUsed(calls)).toEqual([]);
    const declared = declaredAccess();
    const widened = {
      ...declared,
      ListBooks: [
        {
          table: 'books' as const,
          access: {
            table: ['dynamodb:Query', 'dynamodb:UpdateItem'] as const,
            indexes: ['dynamodb:Query'] as const,
            idBlocksItem: ['dynamodb:GetItem'] as const,
          },
        },
      ],
      GetBook: [
        {
          table: 'books' as const,
          access: { table: ['dynamodb:GetItem'] as const, indexes: ['dynamodb:Query'] as const },
        },
      ],
    };
    expect(widerThanUsed(calls, widened).map((wider) => wider.line)).toEqual([
      'ListBooks is declared dynamodb:UpdateItem on every books item, but its recorded calls touch only ID_BLOCKS: declare it under idBlocksItem',
      'GetBook is declared dynamodb:Query on index byAuthorShard, which no recorded call makes',
      'GetBook is declared dynamodb:Query on index byYearShard, which no recorded call makes',
      'GetBook is declared dynamodb:Query on index byAuthorYear, which no recorded call makes',
    ]);
  });

  it('fails when a path only one flow takes is missing from the record, naming it', async () => {
    expect(unrecordedCalls(calls)).toEqual([]);
    for (const want of MUST_RECORD) {
      const others = calls.filter(
        (call) =>
          !(
            call.function === want.function &&
            call.action === want.action &&
            (call.leadingKeys ?? []).some((key) => key.startsWith(want.keyPrefix))
          ),
      );
      const findings = await checkRoles(others, roles, { functions: [] });
      expect(
        findings.map((finding) => finding.kind),
        want.why,
      ).toContain('NOT RECORDED');
      expect(findings.find((finding) => finding.kind === 'NOT RECORDED')?.line).toContain(want.why);
    }
  });

  it('names every granted action no call needs: each one a grant beyond least privilege', async () => {
    for (const removal of dynamoDbRemovals(roles)) {
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
