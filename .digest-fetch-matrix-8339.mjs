
import DigestClient from 'digest-fetch';
const [base, query, body, algorithm] = process.argv.slice(2);
const demo = new DigestClient('demo', 'demo', { algorithm });
const jorg = new DigestClient('jörg', 'pässwörd', { algorithm });
const get = (await demo.fetch(base + '/api/books')).status;
const q = (await demo.fetch(base + query)).status;
const post = (await demo.fetch(base + '/api/books', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
const utf8 = (await jorg.fetch(base + '/api/books')).status;
console.log(JSON.stringify({ get, query: q, post, utf8 }));
