import type { RecordedCall, TableKind } from '../../../local/call-log';
import { NONCE_KEY_NAME } from '../../../shared/auth/nonce';
import { accountKey } from '../../../shared/store/auth/account-items';
import { IDEMPOTENCY_RECORD_PREFIX } from '../../../shared/store/books/book-items';

/** The machine credential test/integration/rare-store-paths.test.ts admits (its account is its own key). */
export const MACHINE_USER = 'recorded-machine';

/** A call the record must hold: who, what, on which table, on a key starting so. */
export interface RequiredCall {
  why: string;
  function: string;
  action: string;
  table: TableKind;
  keyPrefix: string;
}

/**
 * Paths one flow alone takes (test/integration/rare-store-paths.test.ts): without them in the
 * record, a grant they need could lag the code and no check would see it.
 */
export const MUST_RECORD: readonly RequiredCall[] = [
  {
    why: 'the authorizer reads the nonce key (shared/store/auth/dynamodb-secret-store.ts)',
    function: 'Authorizer',
    action: 'dynamodb:GetItem',
    table: 'auth',
    keyPrefix: `SECRET#${NONCE_KEY_NAME}`,
  },
  {
    why: 'the authorizer creates the nonce key',
    function: 'Authorizer',
    action: 'dynamodb:PutItem',
    table: 'auth',
    keyPrefix: `SECRET#${NONCE_KEY_NAME}`,
  },
  {
    why: 'a machine credential is admitted',
    function: 'Authorizer',
    action: 'dynamodb:GetItem',
    table: 'auth',
    keyPrefix: accountKey(MACHINE_USER).pk,
  },
  {
    why: 'DeleteBook deletes a live Idempotency-Key record',
    function: 'DeleteBook',
    action: 'dynamodb:DeleteItem',
    table: 'books',
    keyPrefix: IDEMPOTENCY_RECORD_PREFIX,
  },
  {
    why: 'CreateBook reads the key record a cancelled transaction did not return',
    function: 'CreateBook',
    action: 'dynamodb:GetItem',
    table: 'books',
    keyPrefix: IDEMPOTENCY_RECORD_PREFIX,
  },
];

/** The required calls no recorded call matches. */
export const unrecordedCalls = (calls: readonly RecordedCall[], required = MUST_RECORD): RequiredCall[] =>
  required.filter(
    (want) =>
      !calls.some(
        (call) =>
          call.function === want.function &&
          call.action === want.action &&
          call.table === want.table &&
          (call.leadingKeys ?? []).some((key) => key.startsWith(want.keyPrefix)),
      ),
  );
