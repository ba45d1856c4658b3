/** digest-fetch: one DigestClient for both requests; `basic: true` sends Basic unasked. */
import DigestClient from 'digest-fetch';
import { run, unsupported } from './cell.mjs';

await run(async (cell) => {
  const cellKind = `${cell.scheme}/${cell.mode}`;
  if (cellKind !== 'digest/challenge' && cellKind !== 'basic/preemptive') throw unsupported(cell);
  const client = new DigestClient(cell.user, cell.password, { basic: cell.scheme === 'basic' });
  const get = await client.fetch(cell.base + cell.path);
  await get.arrayBuffer();
  const post = await client.fetch(`${cell.base}/api/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: cell.body,
  });
  await post.arrayBuffer();
  return [get.status, post.status];
});
