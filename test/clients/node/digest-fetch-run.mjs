/**
 * digest-fetch: a run of GETs on one DigestClient, which reuses its nonce with a rising nc.
 * Usage: node digest-fetch-run.mjs URL USER PASSWORD COUNT; prints {"statuses":[...]} or {"error":"..."}.
 */
import DigestClient from 'digest-fetch';

const [url, user, password, count] = process.argv.slice(2);
try {
  const client = new DigestClient(user, password);
  const statuses = [];
  for (let i = 0; i < Number(count); i++) {
    const response = await client.fetch(url);
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  console.log(JSON.stringify({ statuses }));
} catch (error) {
  console.log(JSON.stringify({ error: `${error?.name}: ${error?.message}` }));
}
