/**
 * The documentation's examples, run: every block of the README and of docs/ marked runnable,
 * request or response (test/docs/doc-blocks.ts says how), in document order, against a fresh
 * `timemark start` — the local service and the bridge — in a temporary directory of the
 * document's own. A block runs as a reader would run it after `npm start`:
 *
 * - from the directory `npm start` ran in (its `.timemark/` and `.timemark-bridge/` are there),
 *   with `./bin/timemark.js` and `timemark` on PATH both the CLI;
 * - with TIMEMARK_URL and TIMEMARK_TOKEN set, as the "export" line `npm start` prints sets them;
 * - with the documentation's addresses, http://127.0.0.1:8080 for the service and
 *   http://127.0.0.1:3000 for the bridge, standing for the fresh ones (and put back in the output).
 *
 * A runnable block must exit 0 and print its output block, if it has one, with times, ids and
 * durations masked; a request must be accepted (2xx, or the status of its response block); a
 * response must have the shape of the real reply.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { aroundTests } from '../helpers/around-tests.js';
import { exited, REPO_ROOT, run, startTimemark, TIMEMARK_BIN } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';
import { runOnlyIf } from '../helpers/requirements.js';
import { onPath } from '../setup/install-command.js';
import { docBlocks, documentationFiles, maskVariable, readDocument, shapeDifferences, type DocBlock } from './doc-blocks.js';

const DOCUMENTED_SERVICE = 'http://127.0.0.1:8080';
const DOCUMENTED_BRIDGE = 'http://127.0.0.1:3000';
/** Programs examples may use besides the shell and timemark, which some machines lack. */
const TOOLS = ['curl', 'jq', 'openssl'];

interface Environment {
  dir: string;
  serviceUrl: string;
  bridgeUrl: string;
  token: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function startEnvironment(): Promise<Environment> {
  const dir = makeTempDir('docs');
  const shims = makeTempDir('docs-path');
  symlinkSync(join(REPO_ROOT, 'bin'), join(dir, 'bin'));
  symlinkSync(TIMEMARK_BIN, join(shims, 'timemark'));
  const started = await startTimemark(['start', '--port', '0', '--bridge-port', '0'], /Then open the dashboard.*\n/, {}, dir);
  const output = started.output();
  const serviceUrl = /local service listening on (\S+)/.exec(output)?.[1] as string;
  const bridgeUrl = /bridge listening on (\S+)/.exec(output)?.[1] as string;
  const token = readFileSync(join(dir, '.timemark', 'token'), 'utf8').trim();
  return {
    dir,
    serviceUrl,
    bridgeUrl,
    token,
    env: { PATH: `${shims}:${process.env.PATH}`, HOME: process.env.HOME ?? dir, TIMEMARK_URL: serviceUrl, TIMEMARK_TOKEN: token },
    stop: async () => {
      started.child.kill('SIGTERM');
      await exited(started.child);
      await run('rm', ['-rf', dir, shims]);
    },
  };
}

interface Reply {
  /** The HTTP status, when the reply came from a request block rather than a runnable block's output. */
  status?: number;
  body: unknown;
}

async function request(environment: Environment, method: string, path: string, body?: string): Promise<Reply> {
  const response = await fetch(`${environment.serviceUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${environment.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: the block is not JSON: ${(error as Error).message}`);
  }
}

const documents = documentationFiles(REPO_ROOT)
  .map((document) => ({ document, blocks: docBlocks(document, readDocument(REPO_ROOT, document)) }))
  .filter(({ blocks }) => blocks.length > 0);

describe.each(documents)('the examples of $document', ({ document, blocks }) => {
  const environment = aroundTests(`the service and bridge of ${document}`, startEnvironment, (running) => running.stop(), 60_000);
  let lastReply: Reply | undefined;

  async function runnable(block: Extract<DocBlock, { kind: 'runnable' }>, where: string, context: TestContext): Promise<void> {
    const { serviceUrl, bridgeUrl, dir, env } = environment();
    const script = block.text.replaceAll(DOCUMENTED_SERVICE, serviceUrl).replaceAll(DOCUMENTED_BRIDGE, bridgeUrl);
    for (const tool of TOOLS.filter((name) => new RegExp(`\\b${name}\\b`).test(script))) runOnlyIf(context, onPath(tool), `it runs ${tool}, which is not installed`);
    const result = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, env });
    expect(result.code, `${where} exited with ${result.code}:\n${result.stderr}`).toBe(0);
    const stdout = result.stdout.replaceAll(serviceUrl, DOCUMENTED_SERVICE).replaceAll(bridgeUrl, DOCUMENTED_BRIDGE);
    if (block.output !== undefined) expect(maskVariable(stdout), `${where} printed`).toBe(maskVariable(block.output));
    try {
      lastReply = { body: JSON.parse(stdout) };
    } catch {
      lastReply = undefined;
    }
  }

  async function requestBlock(block: Extract<DocBlock, { kind: 'request' }>, where: string): Promise<void> {
    parseJson(block.text, where);
    lastReply = await request(environment(), block.method, block.path, block.text);
    if (!block.expectsReply) expect(lastReply.status, `${where}: ${block.method} ${block.path} answered ${JSON.stringify(lastReply.body)}`).toBeLessThan(300);
  }

  async function responseBlock(block: Extract<DocBlock, { kind: 'response' }>, where: string): Promise<void> {
    const documented = parseJson(block.text, where);
    const reply = block.method ? await request(environment(), block.method, block.path as string) : lastReply;
    if (!reply) throw new Error(`${where}: no reply to compare with: the runnable block before it printed no JSON.`);
    if (block.status !== undefined) {
      if (reply.status === undefined) throw new Error(`${where}: a response after a runnable block shows no status (the block's output has none).`);
      expect(reply.status, `${where}: the status`).toBe(block.status);
    } else if (reply.status !== undefined) {
      expect(reply.status, `${where}: answered ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    }
    expect(shapeDifferences(documented, reply.body), `${where}: the documented reply and the real one differ`).toEqual([]);
  }

  for (const block of blocks) {
    const where = `${document}:${block.line}`;
    it(`${block.kind} block at line ${block.line}`, { timeout: 60_000 }, (context) =>
      block.kind === 'runnable' ? runnable(block, where, context) : block.kind === 'request' ? requestBlock(block, where) : responseBlock(block, where),
    );
  }
});
