// The ceiling for the bridge benchmark: Express with a raw-body parser that only verifies the
// GitHub signature (HMAC-SHA256 over the raw bytes, constant-time compare) and answers 200.
// Run as a child process by run.mjs; prints "port N" when listening.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';

const secret = process.env.GITHUB_WEBHOOK_SECRET ?? '';
const app = express();
app.post('/webhooks/github', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(req.body).digest('hex')}`);
  const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    res.status(401).json({ code: 401, message: 'bad signature' });
    return;
  }
  res.status(200).json({ code: 200, message: 'ok' });
});
const server = app.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
