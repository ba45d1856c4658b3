/**
 * Captures the JSON log lines this process writes (Powertools writes to process.stdout/stderr through
 * its own Console), so tests can assert what was logged for one request.
 */
export const captureLogs = () => {
  const lines: Record<string, unknown>[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, i) => {
    stream.write = ((chunk: string | Uint8Array, ..._rest: unknown[]) => {
      for (const line of String(chunk).split('\n')) {
        try {
          const parsed = JSON.parse(line);
          if (parsed && typeof parsed === 'object') {
            lines.push(parsed);
            continue;
          }
        } catch {
          // not a JSON log line: let it through
        }
        if (line) (originals[i] as (chunk: string) => boolean)(`${line}\n`);
      }
      return true;
    }) as typeof stream.write;
  });
  return {
    lines,
    /** ERROR-level lines (Powertools writes the level as `level: "ERROR"`). */
    errors: () => lines.filter((line) => String(line.level).toUpperCase() === 'ERROR'),
    clear: () => {
      lines.length = 0;
    },
    restore: () => {
      streams.forEach((stream, i) => {
        stream.write = originals[i] as typeof stream.write;
      });
    },
  };
};
