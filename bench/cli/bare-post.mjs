#!/usr/bin/env node
// The baseline for `timemark annotate create`: the least a Node program can do to create an
// annotation — one node:http POST of the same body, its reply printed. Usage: bare-post.mjs URL TOKEN
import { request } from 'node:http';

const [url, token] = process.argv.slice(2);
const body = JSON.stringify({ datasets: ['bench-cli'], type: 'deploy', time: new Date().toISOString(), title: 'Bench' });
const req = request(`${url}/v2/annotations`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
});
req.on('response', (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => {
    process.stdout.write(`${text}\n`);
    process.exitCode = res.statusCode === 200 || res.statusCode === 201 ? 0 : 1;
  });
});
req.end(body);
