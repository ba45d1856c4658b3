/**
 * The alternative the bench measures for Powertools Logger: one JSON line per call on the console,
 * which Lambda's JSON log format would also give. Only built into a variant bundle, never shipped.
 */
const write =
  (level: string) =>
  (message: string, ...extra: unknown[]) =>
    console.log(JSON.stringify({ level, message, timestamp: new Date().toISOString(), extra }));

export const logger = { debug: write('DEBUG'), info: write('INFO'), warn: write('WARN'), error: write('ERROR') };
