import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

/*
 * A green `npm test` prints its summary alone: what the code under test writes straight to stdout or
 * stderr (Powertools' JSON log and metric lines, CDK's "Bundling asset" notes) goes to this file
 * instead, where a failure can still be read with its context. Console output vitest handles itself
 * (vitest.config.ts: shown for failed tests only).
 */
export const OUTPUT_FILE = resolve('.test-results/output.log');

/** Lines from code under test, not from vitest: a JSON object, or CDK's bundling notes. */
const DIVERTED = /^(\{"|Bundling asset )/;

mkdirSync(resolve('.test-results'), { recursive: true });
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text === undefined || !DIVERTED.test(text)) return write(chunk, ...rest);
    appendFileSync(OUTPUT_FILE, text.endsWith('\n') ? text : `${text}\n`);
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stream.write;
}
