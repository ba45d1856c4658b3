/** The urllib package: `digestAuth` (challenge-driven Digest) or `auth` (preemptive Basic), one HttpClient. */
import { HttpClient } from 'urllib';
import { run, unsupported } from './cell.mjs';

await run(async (cell) => {
  const credentials = `${cell.user}:${cell.password}`;
  let auth;
  if (cell.scheme === 'digest' && cell.mode === 'challenge') auth = { digestAuth: credentials };
  else if (cell.scheme === 'basic' && cell.mode === 'preemptive') auth = { auth: credentials };
  else throw unsupported(cell);
  const client = new HttpClient();
  const get = await client.request(cell.base + cell.path, { ...auth });
  const post = await client.request(`${cell.base}/api/books`, {
    ...auth,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    content: cell.body,
  });
  return [get.status, post.status];
});
