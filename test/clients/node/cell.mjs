/**
 * What every Node client of the matrix shares: the command line and the one-line JSON answer.
 * Usage: node CLIENT.mjs BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or
 * {"error":"..."}. The packages are the project's exactly pinned dev dependencies.
 */
export const run = async (client) => {
  const [base, path, body, scheme, mode, user, password] = process.argv.slice(2);
  const cell = { base, path, body, scheme, mode, user, password };
  try {
    const [get, post] = await client(cell);
    console.log(JSON.stringify({ get, post }));
  } catch (error) {
    console.log(JSON.stringify({ error: `${error?.name}: ${error?.message}` }));
  }
};

export const unsupported = (cell) => new Error(`unsupported cell ${cell.scheme}/${cell.mode}`);
