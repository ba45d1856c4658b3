import type { AttemptChange, FailureChange, SuccessChange } from '../../auth/ports';
import type { Account } from '../../auth/types';
import { DECOYS, decoyAttributes } from './account-items';

/** One conditional UpdateItem's parts, as the builders below add to them. */
export interface AttemptUpdate {
  names: Record<string, string>;
  values: Record<string, unknown>;
  conditions: string[];
  sets: string[];
  removes: string[];
  adds: string[];
}

/**
 * What every outcome's write checks (docs/security.md, "Online guessing"): the source's run as
 * read, and its sign-in still recent for a source counted as known. So writes from other sources
 * never make it fail, and the writes of one source are put in one order.
 */
const sourceUpdate = (change: AttemptChange): AttemptUpdate => {
  const update: AttemptUpdate = {
    names: { '#src': change.source, '#bucket': change.bucket.field },
    values: {},
    conditions: [],
    sets: [],
    removes: [],
    adds: [],
  };
  if (change.seenRun) {
    update.conditions.push('failRuns.#src[0] = :seenCount AND failRuns.#src[1] = :seenAt');
    Object.assign(update.values, { ':seenCount': change.seenRun.consecutive, ':seenAt': change.seenRun.lastFailureAt });
  } else {
    update.conditions.push('attribute_not_exists(failRuns.#src)');
  }
  if (change.knownSince !== undefined) {
    update.conditions.push('signedIn.#src >= :knownSince');
    update.values[':knownSince'] = change.knownSince;
  }
  return update;
};

/** A wrong password (or a name that is nobody's): the source's run and its bucket move on by one failure. */
const addFailure = (update: AttemptUpdate, read: Account, change: FailureChange) => {
  const isUser = read.user !== undefined;
  const { names, values, conditions, sets, removes, adds } = update;
  conditions.push(isUser ? 'attribute_exists(ha1Sha256)' : 'attribute_not_exists(ha1Sha256)');
  values[':now'] = change.now;
  // The bucket moves on in place when it is running, so failures from other sources never conflict.
  if ((read.failures?.[change.bucket.field] ?? 0) >= change.now) {
    conditions.push('#bucket BETWEEN :now AND :atMost');
    sets.push('#bucket = #bucket + :interval');
    Object.assign(values, { ':atMost': change.bucket.atMost, ':interval': change.intervalMs });
  } else {
    conditions.push('(attribute_not_exists(#bucket) OR #bucket < :now)');
    sets.push('#bucket = :stepped');
    values[':stepped'] = change.now + change.intervalMs;
  }
  const run = [change.run.consecutive, change.run.lastFailureAt];
  if (read.stored?.runs) {
    conditions.push('attribute_exists(failRuns)');
    sets.push('failRuns.#src = :run');
    values[':run'] = run;
  } else {
    conditions.push('attribute_not_exists(failRuns)');
    sets.push('failRuns = :runs');
    values[':runs'] = { [change.source]: run };
  }
  // Unconditionally: strangers all drop the same oldest run, so a condition on it would make their
  // writes conflict; a run dropped just after it changed gives a fresh start the bucket still bounds.
  change.evict.forEach((evicted, i) => {
    names[`#evict${i}`] = evicted;
    removes.push(`failRuns.#evict${i}`);
  });
  adds.push('failVersion :one');
  values[':one'] = 1;
  // A user's item never expires: it keeps the same date under another name, so both writes are alike.
  sets.push(isUser ? 'failForgottenAt = :expires' : 'expiresAt = :expires');
  values[':expires'] = change.expiresAtSeconds;
  // With a name's first failure record only, so later writes are shaped as a user's are.
  if (!isUser && read.failures === undefined) {
    sets.push(...DECOYS.map((name) => `${name} = if_not_exists(${name}, :${name})`));
    Object.assign(values, decoyAttributes());
  }
};

/**
 * A right password: only while the user is still there with the credentials (and version) it was checked
 * against (a user removed or changed in flight is refused, and no item is made for a removed one)
 * and the bucket is not empty. A `check` stops there; a success ends the run and signs the source in.
 */
const addRight = (update: AttemptUpdate, read: Account, change: SuccessChange) => {
  const { names, values, conditions, sets, removes } = update;
  conditions.push('ha1Sha256 = :ha1', '(attribute_not_exists(#bucket) OR #bucket <= :atMost)');
  Object.assign(values, { ':ha1': change.ha1Sha256, ':atMost': change.bucket.atMost });
  // A role changed in flight fails this too: the caller reads again and admits the new role.
  if (change.credentialVersion === undefined) conditions.push('attribute_not_exists(credentialVersion)');
  else {
    conditions.push('credentialVersion = :credentialVersion');
    values[':credentialVersion'] = change.credentialVersion;
  }
  if (change.outcome === 'check') return;
  if (change.seenRun) removes.push('failRuns.#src');
  if (read.stored?.signedIn) {
    conditions.push('attribute_exists(signedIn)');
    sets.push('signedIn.#src = :now');
    values[':now'] = change.now;
  } else {
    conditions.push('attribute_not_exists(signedIn)');
    sets.push('signedIn = :signedIn');
    values[':signedIn'] = { [change.source]: change.now };
  }
  change.forget.forEach((tag, i) => {
    names[`#forget${i}`] = tag;
    removes.push(`signedIn.#forget${i}`);
  });
};

/** The conditional write that admits one attempt's outcome, or refuses it when the record changed. */
export const attemptUpdate = (read: Account, change: AttemptChange): AttemptUpdate => {
  const update = sourceUpdate(change);
  if (change.outcome === 'failure') addFailure(update, read, change);
  else addRight(update, read, change);
  return update;
};

/** The UpdateItem's expressions; a check changes nothing, so it has a condition and no update expression. */
export const updateExpressions = ({ names, values, conditions, sets, removes, adds }: AttemptUpdate) => {
  const clauses = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
    ...(adds.length > 0 ? [`ADD ${adds.join(', ')}`] : []),
  ];
  return {
    ...(clauses.length > 0 && { UpdateExpression: clauses.join(' ') }),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};
