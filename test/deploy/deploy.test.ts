/**
 * The production deployment files in deploy/ are read as their runtime reads them and their
 * command line is run as they run it — the same flags, the environment they describe, on the
 * machine's PostgreSQL — then probed where they probe it. Only what cannot run here is swapped:
 * the installed `timemark` becomes this build's bin/timemark.js, the address 127.0.0.1, the port
 * 0 (any free one), the data dir a fresh temp dir, and placeholder values test values.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SOURCE_NAMES } from '../../webhook-server/src/sources/types.js';
import { secretVariable } from '../../webhook-server/src/config.js';
import { exited, REPO_ROOT, runTimemark, startTimemark } from '../helpers/child-process.js';
import { makeTempDir, startLocalService, type LocalService } from '../helpers/local-service.js';
import { eventually } from '../webhook-server/helpers/bridge.js';
import { githubDelivery } from '../webhook-server/helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../webhook-server/helpers/postgres.js';

const READY = /Timemark bridge listening on (http:\/\/\S+)/;
const SECRET_VARIABLES = new Set(['TIMEMARK_TOKEN', 'DATABASE_URL', 'TIMEMARK_BRIDGE_ADMIN_TOKEN', ...SOURCE_NAMES.map(secretVariable)]);
const TEST_WEBHOOK_SECRET = "It's a Secret to Everybody";

function deployFile(path: string): string {
  return readFileSync(join(REPO_ROOT, 'deploy', path), 'utf8');
}

/**
 * The bridge's flags as a deployment file gives them, made local to the test: --host 127.0.0.1
 * (tests never listen beyond this machine), --port 0 and a fresh --data-dir.
 */
function localArgs(args: readonly string[], dataDir: string): string[] {
  const local = [...args];
  for (const [flag, value] of [['--host', '127.0.0.1'], ['--port', '0'], ['--data-dir', dataDir]] as const) {
    const index = local.indexOf(flag);
    expect(index, `${flag} in ${args.join(' ')}`).toBeGreaterThan(0);
    local[index + 1] = value;
  }
  return local;
}

/** Values for the variables a deployment file takes from its secrets, for the test's service and database. */
function testValues(service: LocalService, adminToken: string): Record<string, string> {
  return {
    TIMEMARK_URL: service.url,
    TIMEMARK_TOKEN: service.token,
    DATABASE_URL: TEST_DATABASE_URL,
    TIMEMARK_BRIDGE_ADMIN_TOKEN: adminToken,
    GITHUB_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  };
}

describe('deploy/', () => {
  let service: LocalService;
  let documentedVariables: string;
  const schemas: string[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    service = await startLocalService();
    documentedVariables = (await runTimemark(['bridge', '--help'])).stdout;
  });
  afterAll(async () => {
    await service?.close();
    for (const schema of schemas) await dropSchema(schema);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts the bridge with `args` and `env` (and its own PostgreSQL schema), checks what a
   * supervisor checks, delivers one signed GitHub event, and stops it as the supervisor would.
   */
  async function runAsDeployed(args: string[], env: Record<string, string>, probes: { readiness: string; liveness: string }): Promise<string> {
    const schema = uniqueSchema('bridge_deploy');
    schemas.push(schema);
    const bridge = await startTimemark(args, READY, { ...env, TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema });
    const url = bridge.match[1] as string;
    try {
      expect(bridge.output()).toContain('store:    PostgreSQL at');
      expect((await fetch(`${url}${probes.liveness}`)).status).toBe(200);
      const ready = await fetch(`${url}${probes.readiness}`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { store: 'ok' }, dependencies: { service: 'ok' } });
      const { body, headers } = githubDelivery('deployment.created', { delivery: `deploy-${schema}` });
      expect((await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })).status).toBe(202);
      await eventually(async () => {
        const response = await fetch(`${url}/admin/outbox`, { headers: { authorization: `Bearer ${env.TIMEMARK_BRIDGE_ADMIN_TOKEN}` } });
        const counts = (await response.json()) as { synced: number };
        return counts.synced === 1 ? true : undefined;
      }, 'the delivery applied');
    } finally {
      bridge.child.kill('SIGTERM');
      expect(await exited(bridge.child)).toBe(0);
    }
    return bridge.output();
  }

  describe('the systemd unit', () => {
    const unit = deployFile('systemd/timemark-bridge.service');
    const envFile = deployFile('systemd/timemark-bridge.env.example');
    const directive = (name: string): string | undefined => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1];
    const exampleEnv = Object.fromEntries(
      envFile
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );

    it('runs the installed timemark bridge, reads its environment from the file, and keeps no secret itself', () => {
      expect(directive('ExecStart')).toMatch(/^\/usr\/local\/bin\/timemark bridge /);
      expect(directive('EnvironmentFile')).toBe('/etc/timemark/bridge.env');
      expect(unit).not.toMatch(/^Environment=/m);
      expect(directive('StateDirectory')).toBe('timemark-bridge');
      expect(directive('ExecStart')).toContain('--data-dir /var/lib/timemark-bridge');
      // The bridge's own drain is bounded at 20 s; the unit must wait longer before SIGKILL.
      expect(Number(directive('TimeoutStopSec'))).toBeGreaterThan(20);
    });

    it('names only variables the bridge reads, PostgreSQL through DATABASE_URL', () => {
      expect(Object.keys(exampleEnv)).toContain('DATABASE_URL');
      for (const name of Object.keys(exampleEnv)) expect(documentedVariables, name).toContain(name);
    });

    it('runs as the unit says, with the environment the example describes, and answers its health checks', async () => {
      const dataDir = makeTempDir('deploy-systemd');
      dirs.push(dataDir);
      const [, ...args] = (directive('ExecStart') ?? '').split(/\s+/);
      const env = { ...exampleEnv, ...testValues(service, 'systemd-admin-token-0123456789abcdef') };
      const output = await runAsDeployed(localArgs(args, dataDir), env, { readiness: '/readyz', liveness: '/healthz' });
      for (const name of SECRET_VARIABLES) if (env[name] && name !== 'DATABASE_URL') expect(output, name).not.toContain(env[name]);
    });
  });

  describe('the Kubernetes manifest', () => {
    const documents = parseAllDocuments(deployFile('kubernetes/timemark-bridge.yaml')).map((document) => document.toJS() as any);
    const configMap = documents.find((document) => document.kind === 'ConfigMap');
    const deployment = documents.find((document) => document.kind === 'Deployment');
    const kubernetesService = documents.find((document) => document.kind === 'Service');
    const container = deployment?.spec.template.spec.containers[0];

    it('runs timemark bridge with PostgreSQL and every secret from a Secret, none written in the file', () => {
      expect(container.command.slice(0, 2)).toEqual(['timemark', 'bridge']);
      const secretRefs = (container.env as any[]).filter((entry) => entry.valueFrom?.secretKeyRef).map((entry) => entry.name);
      expect(secretRefs).toEqual(expect.arrayContaining(['TIMEMARK_TOKEN', 'DATABASE_URL', 'TIMEMARK_BRIDGE_ADMIN_TOKEN', 'GITHUB_WEBHOOK_SECRET']));
      for (const entry of container.env as any[]) if (SECRET_VARIABLES.has(entry.name)) expect(entry.value, entry.name).toBeUndefined();
      for (const name of Object.keys(configMap.data)) expect(SECRET_VARIABLES.has(name), name).toBe(false);
    });

    it('probes /readyz for traffic and /healthz for liveness on the port the bridge listens on', () => {
      const port = container.command[container.command.indexOf('--port') + 1];
      expect(container.ports).toEqual([{ name: 'http', containerPort: Number(port) }]);
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(kubernetesService.spec.ports[0].targetPort).toBe('http');
      expect(kubernetesService.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      // Longer than the bridge's own drain (20 s) plus the preStop pause.
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(25);
      // The data dir must be writable under a read-only root file system.
      const dataDir = container.command[container.command.indexOf('--data-dir') + 1];
      expect(container.volumeMounts).toEqual([{ name: 'data', mountPath: dataDir }]);
    });

    it('names only variables the bridge reads', () => {
      const names = [...Object.keys(configMap.data), ...(container.env as any[]).map((entry) => entry.name as string)];
      for (const name of names) expect(documentedVariables, name).toContain(name);
    });

    it('runs as the container does, with the ConfigMap and the Secret in its environment, and passes its probes', async () => {
      const dataDir = makeTempDir('deploy-kubernetes');
      dirs.push(dataDir);
      const values = testValues(service, 'kubernetes-admin-token-0123456789abcdef');
      const env: Record<string, string> = { ...configMap.data, TIMEMARK_URL: values.TIMEMARK_URL };
      for (const entry of container.env as any[]) {
        const key = entry.valueFrom.secretKeyRef.key as string;
        // An optional key the test's Secret does not have stays unset, as in the cluster.
        if (values[key] !== undefined) env[entry.name] = values[key];
      }
      const [, ...args] = container.command as string[];
      const output = await runAsDeployed(localArgs(args, dataDir), env, {
        readiness: container.readinessProbe.httpGet.path,
        liveness: container.livenessProbe.httpGet.path,
      });
      expect(output).not.toContain(values.TIMEMARK_BRIDGE_ADMIN_TOKEN);
    });
  });
});
