// A counting proxy between the bridge and PostgreSQL, for `run.mjs --profile`: it forwards bytes
// unchanged and reads the client's side of the wire protocol to count statements and round trips,
// and the server's ReadyForQuery messages to time each round trip. Nothing in the bridge knows it
// is being profiled, so what is counted is what production sends.
//
// A round trip is a simple Query ('Q') or an extended-protocol Sync ('S'): after either, the client
// waits for ReadyForQuery ('Z'). A statement is an Execute ('E'), or one of the statements of a
// simple Query (split on ';', which the bridge's texts never hold inside a literal).
// Round trips are grouped into transactions per connection and each transaction is put under one
// heading: `acknowledge` (it inserts into bridge_events: the path a 2xx waits for), `admin` (the
// benchmark's own polling of /admin/outbox) or `outbox` (everything else: claims, settles, notes).
import { createServer, connect } from 'node:net';

const HEADINGS = ['acknowledge', 'outbox', 'admin'];

export async function startProfilingProxy(target) {
  const totals = () => Object.fromEntries(HEADINGS.map((name) => [name, { transactions: 0, roundTrips: 0, statements: 0, waitMs: 0 }]));
  let counts = totals();
  const sockets = new Set();
  const server = createServer((downstream) => {
    const upstream = connect(target.port, target.host);
    sockets.add(downstream).add(upstream);
    const connection = { claims: false, started: false, pending: [], open: [], inTransaction: false, named: new Map(), lastParse: '' };
    downstream.on('data', (chunk) => {
      readClient(connection, chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      readServer(connection, chunk);
      downstream.write(chunk);
    });
    const close = () => {
      downstream.destroy();
      upstream.destroy();
      sockets.delete(downstream);
      sockets.delete(upstream);
    };
    downstream.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });

  function finish(connection) {
    const texts = connection.open.map((trip) => trip.text).join('\n');
    const heading = /INSERT INTO bridge_events/i.test(texts) ? 'acknowledge' : /GROUP BY status/i.test(texts) ? 'admin' : 'outbox';
    const bucket = counts[heading];
    bucket.transactions++;
    for (const trip of connection.open) {
      bucket.roundTrips++;
      bucket.statements += trip.statements;
      bucket.waitMs += trip.waitMs;
    }
    connection.open = [];
  }

  /** Frames the client's stream into messages; the first message of a connection has no type byte. */
  function readClient(connection, chunk) {
    connection.clientBuffer = connection.clientBuffer ? Buffer.concat([connection.clientBuffer, chunk]) : chunk;
    let buffer = connection.clientBuffer;
    for (;;) {
      if (!connection.started) {
        if (buffer.length < 8) break;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) break;
        const code = buffer.readInt32BE(4);
        // An SSL or GSS encryption request comes before the real start-up message.
        if (code !== 80877103 && code !== 80877104) {
          connection.started = true;
          connection.claims = buffer.subarray(8, length).toString('utf8').includes('timemark-bridge-claims');
        }
        buffer = buffer.subarray(length);
        continue;
      }
      if (buffer.length < 5) break;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) break;
      onClientMessage(connection, String.fromCharCode(buffer[0]), buffer.subarray(5, 1 + length));
      buffer = buffer.subarray(1 + length);
    }
    connection.clientBuffer = buffer.length > 0 ? Buffer.from(buffer) : undefined;
  }

  function onClientMessage(connection, type, body) {
    if (type === 'Q') {
      const text = body.toString('utf8', 0, body.length - 1);
      const statements = text.split(';').filter((part) => part.trim() !== '').length;
      connection.pending.push({ text, statements, sent: performance.now(), waitMs: 0 });
    } else if (type === 'P') {
      const nameEnd = body.indexOf(0);
      const name = body.toString('utf8', 0, nameEnd);
      const text = body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1));
      connection.lastParse = text;
      if (name !== '') connection.named.set(name, text);
    } else if (type === 'B') {
      const portalEnd = body.indexOf(0);
      const name = body.toString('utf8', portalEnd + 1, body.indexOf(0, portalEnd + 1));
      connection.bound = name === '' ? connection.lastParse : (connection.named.get(name) ?? name);
    } else if (type === 'E') {
      connection.executed = [...(connection.executed ?? []), connection.bound ?? ''];
    } else if (type === 'S') {
      const executed = connection.executed ?? [];
      connection.executed = [];
      connection.pending.push({ text: executed.join(';\n'), statements: executed.length, sent: performance.now(), waitMs: 0 });
    }
  }

  /** Frames the server's stream; each ReadyForQuery ends the oldest round trip and says whether a transaction is open. */
  function readServer(connection, chunk) {
    let buffer = connection.serverBuffer ? Buffer.concat([connection.serverBuffer, chunk]) : chunk;
    // The answer to an SSL request is one byte, before any framed message.
    if (!connection.framing && buffer.length > 0 && (buffer[0] === 0x4e || buffer[0] === 0x53) && buffer.length === 1) {
      connection.serverBuffer = undefined;
      return;
    }
    connection.framing = true;
    while (buffer.length >= 5) {
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) break;
      if (buffer[0] === 0x5a) onReady(connection, String.fromCharCode(buffer[5]));
      buffer = buffer.subarray(1 + length);
    }
    connection.serverBuffer = buffer.length > 0 ? Buffer.from(buffer) : undefined;
  }

  function onReady(connection, status) {
    const trip = connection.pending.shift();
    // The first ReadyForQuery of a connection ends its start-up, not a round trip.
    if (!trip) return;
    trip.waitMs = performance.now() - trip.sent;
    if (connection.claims) {
      const bucket = counts.outbox;
      bucket.roundTrips++;
      bucket.statements += trip.statements;
      bucket.waitMs += trip.waitMs;
      return;
    }
    connection.open.push(trip);
    // 'T' or 'E': inside a transaction block; 'I': idle, so the transaction (or lone statement) is over.
    if (status === 'I') finish(connection);
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    /** Forgets what was counted so far (the bridge's start-up: schema creation). */
    reset() {
      counts = totals();
    },
    counts: () => counts,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
