/** axios: `auth` sends Basic unasked; it has no Digest and does not answer a challenge. */
import axios from 'axios';
import { run, unsupported } from './cell.mjs';

await run(async (cell) => {
  if (cell.scheme !== 'basic' || cell.mode !== 'preemptive') throw unsupported(cell);
  const client = axios.create({
    auth: { username: cell.user, password: cell.password },
    validateStatus: () => true,
  });
  const get = await client.get(cell.base + cell.path);
  const post = await client.post(`${cell.base}/api/books`, cell.body, {
    headers: { 'content-type': 'application/json' },
  });
  return [get.status, post.status];
});
