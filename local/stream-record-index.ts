/*
 * Dynoxide (1.2.1, and 1.5.0 still) keeps every stream record, of every table, in one SQLite table
 * with no index and never deletes them; each streamed write takes MAX(sequence_number) over all of
 * them, so writes slow down without end. No setting changes that: the missing index is added here.
 */
const INDEXES = [
  'CREATE INDEX IF NOT EXISTS book_library_stream_sequence ON _stream_records (table_name, CAST(sequence_number AS INTEGER))',
  'CREATE INDEX IF NOT EXISTS book_library_stream_shard ON _stream_records (table_name, shard_id, CAST(sequence_number AS INTEGER))',
];

/**
 * Adds the indexes to a running Dynoxide's database file (SQLite's WAL lets a second connection
 * change the schema; Dynoxide's statements prepare again on their own). Returns why it could not,
 * or undefined once they exist: Node before 22.13 has no `node:sqlite` without a flag, and another
 * Dynoxide may store its records elsewhere. Either way the database works, only slower.
 */
export const indexStreamRecords = async (databaseFile: string): Promise<string | undefined> => {
  const sqlite = await import('node:sqlite').catch(() => undefined);
  if (!sqlite) return `node:sqlite is not available in Node ${process.version}`;
  let database: InstanceType<typeof sqlite.DatabaseSync> | undefined;
  try {
    database = new sqlite.DatabaseSync(databaseFile, { timeout: 5_000 });
    for (const statement of INDEXES) database.exec(statement);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    database?.close();
  }
};
