import type { RecordedCall } from '../../../local/call-log';
import { widerThanUsed } from './declared-access';
import { deniedCalls, describeDenial, unnoticedRemovals } from './evaluate';
import { describeOverreach, overreaches, type ProbeScope } from './forbidden';
import { MUST_RECORD, unrecordedCalls } from './must-record';
import type { StackRoles } from './role-policies';

/** One reason the roles and the recorded calls disagree. */
export interface Finding {
  kind: 'DENIED' | 'NEVER DECLARED' | 'NOT NEEDED' | 'WIDER THAN USED' | 'NOT RECORDED';
  function: string;
  /** The role's statement at fault, when one is (a denial's fault is the statement it lacks, in the line). */
  statement?: { policy: string; statement: number };
  line: string;
}

/**
 * `npm run test:permissions`'s verdict on recorded calls and synthesized roles: every call a
 * function made is allowed; nothing its declaration leaves out is (forbidden.ts); every granted
 * action is needed by some call, and no declared grant is wider than the calls use; and the paths only one flow takes are in the record. `scope`
 * narrows the probes of forbidden calls (the whole check runs them all).
 */
export const checkRoles = async (
  calls: readonly RecordedCall[],
  roles: StackRoles,
  scope: ProbeScope = {},
): Promise<Finding[]> => {
  const denied = (await deniedCalls(calls, roles)).map(
    (denial): Finding => ({ kind: 'DENIED', function: denial.function, line: describeDenial(denial) }),
  );
  const overreaching = (await overreaches(roles, scope)).flatMap((overreach) =>
    overreach.statements.map(
      (ref): Finding => ({
        kind: 'NEVER DECLARED',
        function: overreach.function,
        statement: { policy: ref.policy, statement: ref.statement },
        line: describeOverreach(overreach),
      }),
    ),
  );
  const unneeded = (await unnoticedRemovals(calls, roles)).map(
    (removal): Finding => ({
      kind: 'NOT NEEDED',
      function: removal.function,
      statement: { policy: removal.policy, statement: removal.statement },
      line:
        `${removal.function} is granted ${removal.action} (${removal.policy}, statement ${removal.statement}), ` +
        'which no recorded call needs: take it out of shared/store/table-access.ts, or add the test that makes that call',
    }),
  );
  const wider = widerThanUsed(calls).map(
    (grant): Finding => ({ kind: 'WIDER THAN USED', function: grant.function, line: grant.line }),
  );
  const unrecorded = unrecordedCalls(calls, MUST_RECORD).map(
    (missing): Finding => ({
      kind: 'NOT RECORDED',
      function: missing.function,
      line:
        `no recorded ${missing.function} ${missing.action} on the ${missing.table} table at ${missing.keyPrefix}… ` +
        `(${missing.why}): test/integration/rare-store-paths.test.ts makes it`,
    }),
  );
  return [...denied, ...overreaching, ...unneeded, ...wider, ...unrecorded];
};
