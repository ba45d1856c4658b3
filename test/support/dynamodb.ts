import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTables, type TableNames } from '../../local/tables';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../../shared/store/dynamodb-client';

/**
 * Fresh, uniquely named tables in the run's local database, so test files never see each other's
 * data, with a patient document client (below) for the tests' own reads and the stores they build.
 */
export const createTestTables = async () => {
  const endpoint = inject('dynamoEndpoint');
  const suffix = randomUUID().slice(0, 8);
  const names: TableNames = { books: `books-${suffix}`, auth: `auth-${suffix}` };
  const client = createDynamoClient(endpoint);
  await ensureTables(client, names);
  return { endpoint, names, client, documentClient: createPatientDocumentClient(endpoint) };
};

/**
 * A document client for the store's own tests, marshalling as the service's does, that gives
 * Dynoxide time. The service's 2 s request timeout is for a DynamoDB that stopped answering
 * (tested in test/reliability/faults-*); Dynoxide on a busy machine (mutation testing runs the
 * store's tests hundreds of times) can take longer than that for a burst of transactions, and a
 * timed-out write the SDK then retries can apply twice (an id block reserved twice).
 */
export const createPatientDocumentClient = (endpoint: string) => createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS);

/** A command as the store sent it: the SDK's command name and its input. */
export type SentCommand = { name: string; input: Record<string, any> };

/**
 * A patient document client that records every command sent through it (once per call, before the
 * SDK's retries), so tests can assert what a real table would do differently from Dynoxide
 * (strongly consistent reads, conditions, page sizes) on the commands themselves.
 */
export const createRecordingDocumentClient = (endpoint: string) => {
  const client = createPatientDocumentClient(endpoint);
  const sent: SentCommand[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ name: String(context.commandName), input: structuredClone(args.input) as Record<string, any> });
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { client, sent };
};
