import { readFileSync } from 'node:fs';
import type { RecordedCall } from '../../../local/call-log';
import { MUST_RECORD } from './must-record';

/** One call of each kind a full `npm run test:permissions` recorded (`-- --save-fixture` rewrites it). */
export const RECORDED_CALLS_FIXTURE = 'test/infra/fixtures/recorded-dynamodb-calls.jsonl';

/** The calls of a call log (one JSON object a line). */
export const readCalls = (file: string): RecordedCall[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedCall);

/** A key's kind: its prefix up to the first `#` (`BOOKS#`, `ACCOUNT#`), or the whole key (`ID_BLOCKS`). */
const kindOfKey = (key: string) => (key.includes('#') ? key.slice(0, key.indexOf('#') + 1) : key);

const isRequired = (call: RecordedCall) =>
  MUST_RECORD.some(
    (want) =>
      want.function === call.function &&
      want.action === call.action &&
      (call.leadingKeys ?? []).some((key) => key.startsWith(want.keyPrefix)),
  );

/**
 * The functions' calls, one of each function, action, table, index and key kind (and each call a
 * required path made), table names by kind: small enough to commit, the same verdicts as the whole log.
 */
export const representativeCalls = (calls: readonly RecordedCall[]): RecordedCall[] => {
  const kept = new Map<string, RecordedCall>();
  for (const call of calls) {
    if (!call.function) continue;
    // An index's keys are no condition's business: one call of each index is enough.
    const keys = call.indexName
      ? []
      : (call.leadingKeys ?? []).map(isRequired(call) ? (key: string) => key : kindOfKey);
    const identity = JSON.stringify([call.function, call.action, call.table, call.indexName, keys]);
    if (!kept.has(identity)) kept.set(identity, { ...call, tableName: call.table ?? call.tableName });
  }
  return [...kept.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, call]) => call);
};
