import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient } from '../support/api-client';
import { startLocalApi } from '../support/local-api';
import { BookModel, nextOperation, type Operation, prng, runScheduled } from '../support/workload';

const OPERATIONS = Number(process.env.WORKLOAD_OPERATIONS ?? 2_000);
const CONCURRENCY = 16;
const ISBN_POOL = 400;
/** A fixed default keeps CI reproducible; set WORKLOAD_SEED to explore (or replay) another sequence. */
const SEED = Number(process.env.WORKLOAD_SEED ?? 20_261_121);

let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

describe('randomised concurrent workload through the local API with authentication', () => {
  it(`${OPERATIONS} seeded operations, ${CONCURRENCY} in flight, end in exactly the model's state`, async () => {
    console.log(`workload: WORKLOAD_SEED=${SEED} (set it to replay this sequence)`);
    const random = prng(SEED);
    const model = new BookModel();
    const client = apiClient(api.baseUrl);
    const counts = new Map<string, number>();
    const generate = function* () {
      for (let i = 0; i < OPERATIONS; i++) yield nextOperation(random, model, ISBN_POOL);
    };

    const execute = async (operation: Operation) => {
      const expected = operation.expect();
      const path = operation.path();
      const headers = operation.headers?.() ?? {};
      const scheme = operation.digest ? 'digest' : 'basic';
      const response = await client.call(operation.method, path, operation.body, scheme, headers);
      const where = `seed ${SEED}: ${operation.method} ${path} ${JSON.stringify(headers)} ${JSON.stringify(operation.body ?? null)}`;
      expect(response.status, `${where} -> ${response.text}`).toBe(expected.status);
      if (expected.book) expect(response.json, where).toMatchObject(expected.book);
      if (expected.etag) expect(response.headers.get('etag'), where).toBe(expected.etag);
      if (expected.list) {
        const fields = (response.json as Record<string, unknown>[]).map(({ createdAt, updatedAt, ...rest }) => rest);
        expect(fields, where).toEqual(expected.list);
      }
      operation.apply(response.status, response.json);
      const key = `${operation.name} ${response.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };

    const started = performance.now();
    const { peak, mean } = await runScheduled(generate(), CONCURRENCY, execute);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `workload: ${OPERATIONS} operations in ${seconds.toFixed(1)} s, peak ${peak} / mean ${mean.toFixed(1)} in flight;`,
      Object.fromEntries([...counts].sort()),
    );

    expect(peak).toBe(CONCURRENCY);
    // Every outcome the model allows was exercised, so the comparison below means something.
    for (const seen of [
      'create 201',
      'create 409',
      'replace 200',
      'replace 409',
      'patch 200',
      'delete 204',
      'keyed create 201',
      'retried create 201',
      'current-tag replace 200',
      'current-tag patch 200',
      'stale-tag replace 412',
      'stale-tag patch 412',
      'current-tag delete 204',
      'stale-tag delete 412',
    ]) {
      expect(counts.get(seen) ?? 0, seen).toBeGreaterThan(0);
    }
    for (const seen of ['get 404', 'delete 404', 'list 200', 'mistake 400']) {
      expect(counts.get(seen) ?? 0, seen).toBeGreaterThan(0);
    }

    const listed = (await client.call('GET', '/api/books')).json as Record<string, unknown>[];
    expect(listed.map(({ createdAt, updatedAt, ...rest }) => rest)).toEqual(model.sorted());
    expect(listed).toHaveLength(model.created - model.removed); // no lost and no phantom writes
    const report = await checkBooksTable(api.tables.documentClient, api.tables.names.books);
    expect(report.violations).toEqual([]);
    expect(report.books).toBe(model.books.size);
  }, 240_000);
});
